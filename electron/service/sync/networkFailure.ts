/**
 * A request to the remote that got no answer, in words a user can act on. Node and undici name
 * the failure by a code (`connect ECONNREFUSED 127.0.0.1:9`, `getaddrinfo ENOTFOUND host`),
 * which reads like a refused password in the Sync panel; the code stays at the end, in
 * parentheses, for whoever has to look further.
 */
export function networkFailureText(e: unknown): string {
  const chain: { code?: unknown; message?: unknown; name?: unknown; hostname?: unknown; address?: unknown; port?: unknown }[] = [];
  for (let x: unknown = e; x && typeof x === 'object' && chain.length < 4; x = (x as { cause?: unknown }).cause) chain.push(x as never);
  const found = chain.find((x) => typeof x.code === 'string' && x.code !== 'UND_ERR_ABORTED');
  const code = typeof found?.code === 'string' ? found.code : '';
  const where =
    typeof found?.hostname === 'string'
      ? found.hostname
      : typeof found?.address === 'string'
        ? `${found.address}${typeof found.port === 'number' ? `:${found.port}` : ''}`
        : 'the server';
  const said = (words: string) => (code ? `${words} (${code})` : words);
  if (chain.some((x) => x.name === 'TimeoutError') || /TIMEOUT|ETIMEDOUT/.test(code))
    return said('the server did not answer in time; it may be busy or the network slow');
  switch (code) {
    case 'ECONNREFUSED':
      return said(`nothing answers at ${where}: is the server running, and is the address (and port) right?`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return said(`the host name ${where} could not be found: check the address, or the network connection`);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ENETDOWN':
      return said(`the network cannot reach ${where}: check the network connection`);
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return said('the connection was cut before the server answered');
    case 'CERT_HAS_EXPIRED':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return said(`the server's certificate is not trusted (expired, self-signed, or for another name)`);
  }
  // Unknown: the most specific message there is (the cause's, not fetch's "fetch failed").
  const last = [...chain].reverse().find((x) => typeof x.message === 'string' && x.message);
  return typeof last?.message === 'string' ? last.message : String(e);
}

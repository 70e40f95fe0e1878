// Measures the service's own start in a fresh process: module load, opening the database
// (migrations checked, schema cache warmed), and the first dataset list answered.
const t0 = performance.now();
const { createService } = await import('../electron/service/service.js');
const loaded = performance.now();
const [dataDir] = process.argv.slice(2);
const service = await createService({ dataDir: dataDir!, admin: { email: 'bench@localhost', password: 'bench-password' } });
const opened = performance.now();
const session = await service.fetch(new Request('http://127.0.0.1/local/session', { method: 'POST', headers: { host: '127.0.0.1' } }));
const { token } = (await session.json()) as { token: string };
const res = await service.fetch(new Request('http://127.0.0.1/local/datasets', { headers: { Authorization: `Bearer ${token}` } }));
const list = (await res.json()) as { datasets: { records: number }[] };
const listed = performance.now();
await service.close();
process.send?.({
  port: 0,
  load: loaded - t0,
  open: opened - loaded,
  firstList: listed - opened,
  total: listed - t0,
  records: list.datasets.reduce((a, d) => a + d.records, 0),
});
process.exit(0);

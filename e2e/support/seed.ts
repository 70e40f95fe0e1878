// Seeds an e2e data dir through the service's own importer: the synthetic every-field-type
// dataset always, the real ODR exports when the reference kit (../shared) is beside the repo.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createService } from '../../electron/service/service.js';
import { importFile } from '../../electron/service/domain/import/importFile.js';
import { syntheticTemplate, writeSyntheticExport } from '../../bench/synthetic.js';
import { FIXTURES } from '../../test/support/fixtures.js';
import { seedPlugins } from './pluginSeed.js';

const [dataDir, records = '40', bigExport] = process.argv.slice(2);
const service = await createService({ dataDir: dataDir!, admin: { email: 'admin@e2e.local', password: 'e2e-password' } });
const user = service.domain.users.firstSuperUser()!;
const tpl = path.join(dataDir!, 'synthetic-template.json');
writeFileSync(tpl, JSON.stringify(syntheticTemplate()));
await importFile(service.domain, user, tpl);
const recs = path.join(dataDir!, 'synthetic-records.json');
await writeSyntheticExport(recs, Number(records));
await importFile(service.domain, user, recs);
if (existsSync(FIXTURES)) {
  for (const f of ['chemin_template.json', 'chemin_data.json']) await importFile(service.domain, user, path.join(FIXTURES, f));
  await seedPlugins(service, FIXTURES);
}
// A second, larger export for the import-job test (uploaded through the UI).
if (bigExport) await writeSyntheticExport(bigExport, 4000, 100_000);
await service.close();
console.log('seeded');

// The synthetic every-field-type dataset lives with the service (the app's "sample dataset");
// benches and tests use the same generator.
export * from '../electron/service/domain/sample/synthetic.js';

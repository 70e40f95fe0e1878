export * from './common.js';
export * from './record.js';
export * from './template.js';
export * from './requests.js';
export * from './job.js';
export * from './sync.js';
export * from './local.js';
export * from './search.js';

export * from './common';
export * from './errors';
export * from './projects';
export * from './media';
export * from './sessions';
export * from './models';

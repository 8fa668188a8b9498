// Starts the address-pool thread: the thread has its own module loader, so it registers tsx (as
// bin/satchel.js does) before loading the TypeScript body.
import { register } from 'tsx/esm/api';

register();
await import('./pool-thread.ts');

#!/usr/bin/env node
// Runs the TypeScript CLI through tsx, so `npx satchel ...` works in a checkout without a build.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli/main.ts');
process.exit(await runCli(process.argv.slice(2)));

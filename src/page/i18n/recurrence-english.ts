// Imported (for its effect) by every module of the subscription page: adds that page's English
// (./en-recurrence.ts) to the bundled table, before any of its text is looked up.
import { en } from './en.ts';
import { enRecurrence } from './en-recurrence.ts';

Object.assign(en, enRecurrence);

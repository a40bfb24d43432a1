/** Arguments shared by the pdf/… operations. */
import * as z from 'zod';
import { opt } from '../fields.js';

/** A password as given: any text (spaces and all), kept out of responses and logs by its name (lib/redact.ts). */
export const password = z.string().min(1).max(1024);

/** `password`: the input's own password, when it asks for one on opening. */
export const inputPassword = opt(password, null, 'the password that opens the input, when it has one');

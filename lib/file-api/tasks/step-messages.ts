/** The message of the step queues: the id of a task to run (everything else is read from the store). */
import * as z from 'zod';

export const stepMessage = z.object({
  taskId: z.string().min(1),
  /** How many times a process task was handed from one engine family's function to another's (lib/file-api/tasks/runner.ts). */
  hops: z.number().int().min(0).optional(),
});

/** The message a step consumer receives (the schema's type: one definition). */
export type StepMessage = z.infer<typeof stepMessage>;

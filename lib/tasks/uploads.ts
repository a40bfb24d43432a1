/** Where import/upload forms put files: `uploads/<taskId>/<filename>`, until the task takes them in. */

const UPLOAD_KEY = /^uploads\/([0-9a-f-]{36})\/(.+)$/;

export const uploadPrefix = (taskId: string) => `uploads/${taskId}/`;

/** The task and file name an upload key belongs to; undefined outside the upload prefix. */
export function uploadTaskOf(key: string): { taskId: string; filename: string } | undefined {
  const match = UPLOAD_KEY.exec(key);
  return match ? { taskId: match[1]!, filename: match[2]! } : undefined;
}

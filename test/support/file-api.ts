/** Plain HTTP calls to the file API with a bearer key, for what the SDK does not call (our extensions, raw status codes). */
export interface ApiAnswer<Body = unknown> {
  status: number;
  body: Body | undefined;
}

export async function callApi<Body = unknown>(baseUrl: string, key: string, method: string, route: string, body?: unknown): Promise<ApiAnswer<Body>> {
  const res = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Body) : undefined };
}

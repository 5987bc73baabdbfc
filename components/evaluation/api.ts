import { ActionFailure } from "@/lib/actions/unwrap";

/** JSON calls to /api/eval/*: failures become ActionFailure with the server's message and field messages. */
export async function evalApi<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`/api/eval${path}`, {
      method: init.method ?? "GET",
      headers: init.body === undefined ? undefined : { "content-type": "application/json" },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      cache: "no-store",
    });
  } catch {
    throw new ActionFailure("Could not reach the server. Check your connection and try again.");
  }
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new ActionFailure(json?.error?.message ?? `The request failed (HTTP ${res.status}).`, json?.error?.fields ?? {});
  return json as T;
}

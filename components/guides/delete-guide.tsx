"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { deleteGuideAction } from "@/lib/actions/guides";
import { unwrap } from "@/lib/actions/unwrap";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";

/** Deleting asks once more; runs the guide helped keep their stored results. */
export function DeleteGuide({ id }: { id: string }) {
  const router = useRouter();
  const [confirming, setConfirming] = useState(false);
  const queryClient = useQueryClient();
  const del = useMutation({
    mutationFn: () => unwrap(deleteGuideAction({ id })),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: ["guides"] });
      router.push("/guides");
    },
  });
  if (!confirming)
    return (
      <Button variant="secondary" onClick={() => setConfirming(true)}>
        Delete…
      </Button>
    );
  return (
    <div className="space-y-2 rounded-md border border-rose-200 bg-rose-50 p-3 text-sm" role="group" aria-label="Confirm deletion">
      <p>Delete this guide? Future questions will no longer use it; past runs are kept.</p>
      <div className="flex gap-2">
        <Button variant="danger" onClick={() => del.mutate()} disabled={del.isPending} autoFocus>
          {del.isPending ? "Deleting…" : "Delete permanently"}
        </Button>
        <Button variant="ghost" onClick={() => setConfirming(false)}>
          Keep it
        </Button>
      </div>
      {del.error && <Alert tone="error">{del.error.message}</Alert>}
    </div>
  );
}

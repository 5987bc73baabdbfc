"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { getTableNotesAction, saveTableNotesAction } from "@/lib/actions/source-objects";
import { ActionFailure, unwrap } from "@/lib/actions/unwrap";
import { MEASURE_AGGREGATES, tableNotesSchema, type TableNotes } from "@/lib/catalog/table-notes";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, SelectInput, TextInput } from "../ui/field";

/**
 * An analyst's notes on a database table (lib/catalog/table-notes.ts): what each column is called and
 * means in the business, and measures no column holds ("revenue" = SUM of quantity * unit_price). Questions
 * on the table link to them from the next ask on.
 */

interface ColumnDraft {
  name: string;
  description: string;
  synonyms: string;
}
interface MeasureDraft {
  name: string;
  expression: string;
  aggregate: (typeof MEASURE_AGGREGATES)[number];
  description: string;
  synonyms: string;
}

const AGGREGATE_LABEL: Record<MeasureDraft["aggregate"], string> = { sum: "Sum", avg: "Average", min: "Minimum", max: "Maximum" };
const list = (text: string) =>
  text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

function drafts(columns: string[], notes: TableNotes): { columns: ColumnDraft[]; measures: MeasureDraft[] } {
  const noted = new Map(notes.columns.map((c) => [c.name, c]));
  return {
    columns: columns.map((name) => ({
      name,
      description: noted.get(name)?.description ?? "",
      synonyms: (noted.get(name)?.synonyms ?? []).join(", "),
    })),
    measures: notes.measures.map((m) => ({ ...m, synonyms: m.synonyms.join(", ") })),
  };
}

export function TableNotesEditor({ objectId, table }: { objectId: string; table: string }) {
  const notes = useQuery({ queryKey: ["table-notes", objectId], queryFn: () => unwrap(getTableNotesAction({ id: objectId })) });
  if (notes.isPending) return <p className="text-sm text-slate-500">Loading the table&apos;s notes…</p>;
  if (notes.error) return <Alert tone="error">{notes.error.message}</Alert>;
  return <TableNotesForm objectId={objectId} table={table} initial={drafts(notes.data.columns, notes.data.notes)} />;
}

function TableNotesForm({
  objectId,
  table,
  initial,
}: {
  objectId: string;
  table: string;
  initial: { columns: ColumnDraft[]; measures: MeasureDraft[] };
}) {
  const queryClient = useQueryClient();
  const [columns, setColumns] = useState<ColumnDraft[]>(initial.columns);
  const [measures, setMeasures] = useState<MeasureDraft[]>(initial.measures);
  const save = useMutation({
    mutationFn: () => {
      const notes = {
        columns: columns.map((c) => ({ name: c.name, description: c.description, synonyms: list(c.synonyms) })),
        measures: measures.map((m) => ({ ...m, synonyms: list(m.synonyms) })),
      };
      // The same schema the server checks, first here, so each message stands at its own field.
      const checked = tableNotesSchema.safeParse(notes);
      if (!checked.success) {
        const fields: Record<string, string> = {};
        for (const issue of checked.error.issues) fields[issue.path.slice(0, 3).join(".")] ??= issue.message;
        throw new ActionFailure("Some notes need attention; nothing was saved.", fields);
      }
      return unwrap(saveTableNotesAction({ id: objectId, notes }));
    },
    onSuccess: (saved) => queryClient.setQueryData(["table-notes", objectId], saved),
  });
  const errors = save.error instanceof ActionFailure ? save.error.fields : {};
  const setColumn = (i: number, patch: Partial<ColumnDraft>) => setColumns((cs) => cs.map((c, j) => (j === i ? { ...c, ...patch } : c)));
  const setMeasure = (i: number, patch: Partial<MeasureDraft>) => setMeasures((ms) => ms.map((m, j) => (j === i ? { ...m, ...patch } : m)));

  return (
    <form
      aria-label="Column notes and measures"
      className="space-y-4 border-t border-slate-100 pt-4"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <div>
        <h3 className="text-sm font-semibold">Columns and measures</h3>
        <p className="text-xs text-slate-500">
          The words your business uses for {table}&apos;s columns, and measures no column holds. Questions link to them from the next ask
          on: &ldquo;wealth&rdquo; finds a net-worth column, &ldquo;revenue&rdquo; is summed from its expression.
        </p>
      </div>
      <table className="w-full text-left text-sm">
        <thead className="text-xs text-slate-500">
          <tr>
            <th className="py-1 pr-2 font-medium">Column</th>
            <th className="py-1 pr-2 font-medium">Also called (comma-separated)</th>
            <th className="py-1 font-medium">What it means</th>
          </tr>
        </thead>
        <tbody>
          {columns.map((c, i) => (
            <tr key={c.name} className="align-top">
              <td className="py-1 pr-2">
                <code>{c.name}</code>
              </td>
              <td className="py-1 pr-2">
                <TextInput
                  aria-label={`Synonyms of ${c.name}`}
                  value={c.synonyms}
                  onChange={(e) => setColumn(i, { synonyms: e.target.value })}
                  invalid={!!errors[`columns.${i}.synonyms`]}
                />
                {errors[`columns.${i}.synonyms`] && (
                  <p className="mt-1 text-xs text-rose-700" role="alert">
                    {errors[`columns.${i}.synonyms`]}
                  </p>
                )}
              </td>
              <td className="py-1">
                <TextInput
                  aria-label={`Meaning of ${c.name}`}
                  value={c.description}
                  onChange={(e) => setColumn(i, { description: e.target.value })}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <fieldset className="space-y-3">
        <legend className="text-sm font-semibold">Measures</legend>
        {measures.length === 0 && <p className="text-xs text-slate-500">No measures yet.</p>}
        {measures.map((m, i) => (
          <div key={i} className="grid gap-2 rounded-md border border-slate-200 p-3 md:grid-cols-2" data-testid="measure">
            <Field id={`measure-${i}-name`} label="Name" error={errors[`measures.${i}.name`]}>
              <TextInput
                id={`measure-${i}-name`}
                value={m.name}
                onChange={(e) => setMeasure(i, { name: e.target.value })}
                placeholder="revenue"
                invalid={!!errors[`measures.${i}.name`]}
              />
            </Field>
            <Field
              id={`measure-${i}-expression`}
              label="Expression over this table's columns"
              hint="Column names, numbers, + - * / and parentheses."
              error={errors[`measures.${i}.expression`]}
            >
              <TextInput
                id={`measure-${i}-expression`}
                value={m.expression}
                onChange={(e) => setMeasure(i, { expression: e.target.value })}
                placeholder="quantity * unit_price"
                invalid={!!errors[`measures.${i}.expression`]}
                style={{ fontFamily: "ui-monospace, monospace" }}
              />
            </Field>
            <Field id={`measure-${i}-aggregate`} label="Combined by">
              <SelectInput
                id={`measure-${i}-aggregate`}
                value={m.aggregate}
                onChange={(e) => setMeasure(i, { aggregate: e.target.value as MeasureDraft["aggregate"] })}
              >
                {MEASURE_AGGREGATES.map((a) => (
                  <option key={a} value={a}>
                    {AGGREGATE_LABEL[a]}
                  </option>
                ))}
              </SelectInput>
            </Field>
            <Field id={`measure-${i}-synonyms`} label="Also called (comma-separated)" error={errors[`measures.${i}.synonyms`]}>
              <TextInput id={`measure-${i}-synonyms`} value={m.synonyms} onChange={(e) => setMeasure(i, { synonyms: e.target.value })} />
            </Field>
            <div className="md:col-span-2">
              <Field id={`measure-${i}-description`} label="What it means" error={errors[`measures.${i}.description`]}>
                <TextInput
                  id={`measure-${i}-description`}
                  value={m.description}
                  onChange={(e) => setMeasure(i, { description: e.target.value })}
                />
              </Field>
            </div>
            <div>
              <Button type="button" variant="ghost" onClick={() => setMeasures((ms) => ms.filter((_, j) => j !== i))}>
                Remove measure
              </Button>
            </div>
          </div>
        ))}
        <Button
          type="button"
          variant="secondary"
          onClick={() => setMeasures((ms) => [...ms, { name: "", expression: "", aggregate: "sum", description: "", synonyms: "" }])}
        >
          Add a measure
        </Button>
      </fieldset>
      {save.error && <Alert tone="error">{save.error.message}</Alert>}
      {save.isSuccess && <Alert tone="success">Saved. The next question on this table uses these notes.</Alert>}
      <Button type="submit" disabled={save.isPending}>
        {save.isPending ? "Checking and saving…" : "Save notes"}
      </Button>
    </form>
  );
}

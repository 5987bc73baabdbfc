"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { createGroupAction, createUserAction, listUsersAction, updateUserAction } from "@/lib/actions/users";
import { ActionFailure, unwrap } from "@/lib/actions/unwrap";
import { ROLE_LABELS, ROLES } from "@/lib/auth/roles";
import { PASSWORD_MIN_LENGTH } from "@/lib/auth/password-policy";
import type { GroupRow, UserRow } from "@/lib/users/users";
import { createGroupSchema, createUserSchema } from "@/lib/users/users.validation";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, SelectInput, TextInput } from "../ui/field";
import { count } from "@/lib/format/count";

type Data = { users: UserRow[]; groups: GroupRow[] };
type Role = UserRow["role"];
const QUERY_KEY = ["admin", "users"] as const;

function fieldErrorsOf(error: unknown): Record<string, string> {
  return error instanceof ActionFailure ? error.fields : {};
}

export function UsersAdmin({ initial, currentUserId }: { initial: Data; currentUserId: string }) {
  const { data } = useQuery({
    queryKey: QUERY_KEY,
    queryFn: () => unwrap(listUsersAction({})),
    initialData: initial,
  });
  return (
    <div className="grid gap-8 lg:grid-cols-[1fr_20rem]">
      <section aria-labelledby="users-heading" className="min-w-0">
        <h2 id="users-heading" className="mb-3 text-lg font-semibold">
          People <span className="text-sm font-normal text-slate-500">({data.users.length})</span>
        </h2>
        <UsersTable users={data.users} groups={data.groups} currentUserId={currentUserId} />
      </section>
      <div className="space-y-8">
        <CreateUserForm groups={data.groups} />
        <GroupsPanel groups={data.groups} />
      </div>
    </div>
  );
}

function GroupCheckboxes({
  groups,
  selected,
  onChange,
  idPrefix,
}: {
  groups: GroupRow[];
  selected: string[];
  onChange: (ids: string[]) => void;
  idPrefix: string;
}) {
  if (!groups.length) return <p className="text-xs text-slate-500">No groups yet. Create one below.</p>;
  return (
    <div className="flex flex-wrap gap-x-4 gap-y-1">
      {groups.map((g) => (
        <label key={g.id} htmlFor={`${idPrefix}-${g.id}`} className="flex items-center gap-1.5 text-sm">
          <input
            id={`${idPrefix}-${g.id}`}
            type="checkbox"
            checked={selected.includes(g.id)}
            onChange={(e) => onChange(e.target.checked ? [...selected, g.id] : selected.filter((id) => id !== g.id))}
          />
          {g.name}
        </label>
      ))}
    </div>
  );
}

function UsersTable({ users, groups, currentUserId }: { users: UserRow[]; groups: GroupRow[]; currentUserId: string }) {
  const [editing, setEditing] = useState<string | null>(null);
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="w-full text-left text-sm">
        <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
          <tr>
            <th scope="col" className="px-4 py-2">
              Name
            </th>
            <th scope="col" className="px-4 py-2">
              Role
            </th>
            <th scope="col" className="px-4 py-2">
              Groups
            </th>
            <th scope="col" className="px-4 py-2">
              Status
            </th>
            <th scope="col" className="px-4 py-2">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {users.map((u) =>
            editing === u.id ? (
              <EditUserRow key={u.id} user={u} groups={groups} onDone={() => setEditing(null)} />
            ) : (
              <tr key={u.id} className="border-b border-slate-100 last:border-0" data-testid={`user-row-${u.email}`}>
                <td className="px-4 py-3">
                  <div className="font-medium">
                    {u.name} {u.id === currentUserId && <span className="text-xs text-slate-500">(you)</span>}
                  </div>
                  <div className="text-slate-500">{u.email}</div>
                </td>
                <td className="px-4 py-3" data-testid="user-role">
                  {ROLE_LABELS[u.role]}
                </td>
                <td className="px-4 py-3 text-slate-600">{u.groups.map((g) => g.name).join(", ") || "—"}</td>
                <td className="px-4 py-3">
                  {u.active ? <span className="text-emerald-700">Active</span> : <span className="text-slate-500">Deactivated</span>}
                </td>
                <td className="px-4 py-3 text-right">
                  <Button variant="secondary" onClick={() => setEditing(u.id)} aria-label={`Edit ${u.email}`}>
                    Edit
                  </Button>
                </td>
              </tr>
            ),
          )}
        </tbody>
      </table>
    </div>
  );
}

function EditUserRow({ user, groups, onDone }: { user: UserRow; groups: GroupRow[]; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [role, setRole] = useState<Role>(user.role);
  const [active, setActive] = useState(user.active);
  const [groupIds, setGroupIds] = useState(user.groups.map((g) => g.id));
  const mutation = useMutation({
    mutationFn: () => unwrap(updateUserAction({ id: user.id, role, active, groupIds })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: QUERY_KEY });
      onDone();
    },
  });
  const prefix = `edit-${user.id}`;
  return (
    <tr className="border-b border-slate-100 bg-brand-50/40" data-testid={`user-edit-${user.email}`}>
      <td className="px-4 py-3 align-top">
        <div className="font-medium">{user.name}</div>
        <div className="text-slate-500">{user.email}</div>
      </td>
      <td className="px-4 py-3 align-top">
        <label htmlFor={`${prefix}-role`} className="sr-only">
          Role
        </label>
        <SelectInput id={`${prefix}-role`} value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {ROLE_LABELS[r]}
            </option>
          ))}
        </SelectInput>
      </td>
      <td className="px-4 py-3 align-top">
        <fieldset>
          <legend className="sr-only">Groups</legend>
          <GroupCheckboxes groups={groups} selected={groupIds} onChange={setGroupIds} idPrefix={prefix} />
        </fieldset>
      </td>
      <td className="px-4 py-3 align-top">
        <label htmlFor={`${prefix}-active`} className="flex items-center gap-1.5">
          <input id={`${prefix}-active`} type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} />
          Active
        </label>
      </td>
      <td className="space-y-2 px-4 py-3 text-right align-top">
        <div className="flex justify-end gap-2">
          <Button variant="secondary" onClick={onDone}>
            Cancel
          </Button>
          <Button onClick={() => mutation.mutate()} disabled={mutation.isPending}>
            {mutation.isPending ? "Saving…" : "Save"}
          </Button>
        </div>
        {mutation.error && (
          <div className="text-left">
            <Alert tone="error">{mutation.error.message}</Alert>
          </div>
        )}
      </td>
    </tr>
  );
}

const EMPTY_USER = { email: "", name: "", password: "", role: "USER" as Role, groupIds: [] as string[] };

function CreateUserForm({ groups }: { groups: GroupRow[] }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState(EMPTY_USER);
  const [clientErrors, setClientErrors] = useState<Record<string, string>>({});
  const [created, setCreated] = useState<string | null>(null);
  const mutation = useMutation({
    mutationFn: (input: typeof EMPTY_USER) => unwrap(createUserAction(input)),
    onSuccess: async (user) => {
      setCreated(user.email);
      setForm(EMPTY_USER);
      await queryClient.invalidateQueries({ queryKey: QUERY_KEY });
    },
  });
  const errors = { ...fieldErrorsOf(mutation.error), ...clientErrors };

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    setCreated(null);
    const parsed = createUserSchema.safeParse(form);
    if (!parsed.success) {
      setClientErrors(Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message])));
      return;
    }
    setClientErrors({});
    mutation.mutate(form);
  }

  return (
    <section aria-labelledby="create-user-heading" className="rounded-lg border border-slate-200 bg-white p-5">
      <h2 id="create-user-heading" className="mb-4 text-lg font-semibold">
        Create a user
      </h2>
      <form onSubmit={onSubmit} noValidate className="space-y-3" aria-label="Create a user">
        {created && <Alert tone="success">Created {created}. They can sign in now.</Alert>}
        {mutation.error && !Object.keys(fieldErrorsOf(mutation.error)).length && <Alert tone="error">{mutation.error.message}</Alert>}
        <Field id="new-email" label="Email" error={errors.email}>
          <TextInput
            id="new-email"
            type="email"
            autoComplete="off"
            value={form.email}
            invalid={!!errors.email}
            onChange={(e) => setForm({ ...form, email: e.target.value })}
          />
        </Field>
        <Field id="new-name" label="Name" error={errors.name}>
          <TextInput id="new-name" value={form.name} invalid={!!errors.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
        </Field>
        <Field
          id="new-password"
          label="Initial password"
          error={errors.password}
          hint={`At least ${PASSWORD_MIN_LENGTH} characters. Share it privately.`}
        >
          <TextInput
            id="new-password"
            type="password"
            autoComplete="new-password"
            value={form.password}
            invalid={!!errors.password}
            onChange={(e) => setForm({ ...form, password: e.target.value })}
          />
        </Field>
        <Field id="new-role" label="Role" error={errors.role}>
          <SelectInput id="new-role" value={form.role} onChange={(e) => setForm({ ...form, role: e.target.value as Role })}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {ROLE_LABELS[r]}
              </option>
            ))}
          </SelectInput>
        </Field>
        <fieldset className="space-y-1">
          <legend className="text-sm font-medium text-slate-800">Groups</legend>
          <GroupCheckboxes
            groups={groups}
            selected={form.groupIds}
            onChange={(groupIds) => setForm({ ...form, groupIds })}
            idPrefix="new-group"
          />
          {errors.groupIds && <p className="text-xs text-rose-700">{errors.groupIds}</p>}
        </fieldset>
        <Button type="submit" className="w-full" disabled={mutation.isPending}>
          {mutation.isPending ? "Creating…" : "Create user"}
        </Button>
      </form>
    </section>
  );
}

function GroupsPanel({ groups }: { groups: GroupRow[] }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [clientError, setClientError] = useState<string | undefined>();
  const mutation = useMutation({
    mutationFn: () => unwrap(createGroupAction({ name, description })),
    onSuccess: async () => {
      setName("");
      setDescription("");
      await queryClient.invalidateQueries({ queryKey: QUERY_KEY });
    },
  });
  function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = createGroupSchema.safeParse({ name, description });
    if (!parsed.success) return setClientError(parsed.error.issues[0]?.message);
    setClientError(undefined);
    mutation.mutate();
  }
  const nameError = clientError ?? fieldErrorsOf(mutation.error).name;
  return (
    <section aria-labelledby="groups-heading" className="rounded-lg border border-slate-200 bg-white p-5">
      <h2 id="groups-heading" className="mb-3 text-lg font-semibold">
        Groups
      </h2>
      {groups.length ? (
        <ul className="mb-4 space-y-1 text-sm" data-testid="group-list">
          {groups.map((g) => (
            <li key={g.id} className="flex justify-between gap-2">
              <span className="font-medium">{g.name}</span>
              <span className="text-slate-500">{count(g.memberCount, "member")}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p className="mb-4 text-sm text-slate-600">No groups yet. Groups let you restrict knowledge bases to some people.</p>
      )}
      <form onSubmit={onSubmit} noValidate className="space-y-3" aria-label="Create a group">
        {mutation.error && !nameError && <Alert tone="error">{mutation.error.message}</Alert>}
        <Field id="group-name" label="New group name" error={nameError}>
          <TextInput id="group-name" value={name} invalid={!!nameError} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field id="group-description" label="Description (optional)">
          <TextInput id="group-description" value={description} onChange={(e) => setDescription(e.target.value)} />
        </Field>
        <Button type="submit" variant="secondary" className="w-full" disabled={mutation.isPending}>
          {mutation.isPending ? "Creating…" : "Create group"}
        </Button>
      </form>
    </section>
  );
}

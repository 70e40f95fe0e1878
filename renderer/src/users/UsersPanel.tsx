import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import type { DatasetSummary } from '../../../shared/schemas/local';
import type { DatasetRole, PermissionName, UserSummary } from '../../../shared/schemas/users';
import { createUser, errorText, listUsers, setRole, updateUser } from '../lib/api';
import { confirmDialog } from '../ui/Dialog';
import { SidePanel } from '../ui/SidePanel';
import { toast } from '../ui/toasts';
import { SteadyButton } from '../ui/SteadyButton';
import { GeneratedPassword } from './GeneratedPassword';

const ROLE_LABEL: Record<DatasetRole, string> = {
  view_only: 'View (public records only)',
  view: 'View all records',
  edit: 'Edit all records',
  admin: 'Administer',
};
const GRANT: Record<DatasetRole, PermissionName> = { view_only: 'view_only', view: 'view_all', edit: 'edit_all', admin: 'admin' };

/** The service's rule for a password (shared/schemas/users.ts UserUpdate). */
const MIN_PASSWORD = 8;
const passwordProblem = (p: string) => (p !== '' && p.length < MIN_PASSWORD ? `At least ${MIN_PASSWORD} characters` : null);

/**
 * Super-users: every user, adding one (with a password and super-user status, or a random
 * password when left empty, which is shown once), each user's super-user status and password, and each user's role per
 * dataset (grant, change, revoke).
 */
export function UsersPanel({ datasets, onClose }: { datasets: DatasetSummary[]; onClose: () => void }) {
  const users = useQuery({ queryKey: ['users'], queryFn: listUsers });
  const qc = useQueryClient();
  const refresh = () => qc.invalidateQueries({ queryKey: ['users'] });
  const [email, setEmail] = useState('');
  // Where the focus goes when the generated-password box closes (its Done button goes with it).
  const emailField = useRef<HTMLInputElement>(null);
  const [first, setFirst] = useState('');
  const [last, setLast] = useState('');
  const [password, setPassword] = useState('');
  const [superUser, setSuperUser] = useState(false);
  // The password the service picked for the last user added without one (shown until Done).
  const [made, setMade] = useState<{ email: string; password: string } | null>(null);
  const badPassword = passwordProblem(password);
  const typed = email.trim().toLowerCase();
  const existing = typed === '' ? undefined : users.data?.find((u) => u.email.toLowerCase() === typed);
  const add = useMutation({
    // One request that only ever creates: an email already taken is refused (409) by the service,
    // so adding can never reset someone's password or make them super-user.
    mutationFn: () =>
      createUser({
        email: email.trim(),
        first_name: first.trim(),
        last_name: last.trim(),
        ...(password ? { password } : {}),
        ...(superUser ? { super_user: true } : {}),
      }),
    onMutate: () => setMade(null),
    onSuccess: (u) => {
      toast({ kind: 'info', text: `Added ${u.email}` });
      if (u.generated_password) setMade({ email: u.email, password: u.generated_password });
      setEmail('');
      setFirst('');
      setLast('');
      setPassword('');
      setSuperUser(false);
      void refresh();
    },
    onError: (e) => {
      toast({ kind: 'error', text: `Could not add the user: ${errorText(e)}` });
      void refresh();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  return (
    <SidePanel title="Users" className="users-panel" onClose={onClose}>
      <form className="user-add" onSubmit={submit} aria-label="Add a user">
        <label>
          Email
          <input
            ref={emailField}
            type="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            autoComplete="off"
            aria-invalid={existing ? true : undefined}
          />
          {existing && (
            <span className="field-error" role="alert">
              {existing.email} is already a user; change them in the list below
            </span>
          )}
        </label>
        <label>
          First name
          <input value={first} onChange={(e) => setFirst(e.target.value)} autoComplete="off" />
        </label>
        <label>
          Last name
          <input value={last} onChange={(e) => setLast(e.target.value)} autoComplete="off" />
        </label>
        <PasswordInput label="Password (empty: a random one)" value={password} onChange={setPassword} problem={badPassword} />
        <label className="choice">
          <input type="checkbox" checked={superUser} onChange={(e) => setSuperUser(e.target.checked)} />
          Super-user (may do everything)
        </label>
        <SteadyButton
          type="submit"
          className="primary"
          disabled={add.isPending || email.trim() === '' || badPassword !== null || existing !== undefined}
        >
          Add user
        </SteadyButton>
      </form>
      {made && (
        <GeneratedPassword
          email={made.email}
          password={made.password}
          onDone={() => {
            setMade(null);
            emailField.current?.focus();
          }}
        />
      )}
      {users.isError && <p role="alert">Could not list users: {errorText(users.error)}</p>}
      <ul className="user-list" aria-label="Users">
        {(users.data ?? []).map((u) => (
          <UserRow key={u.id} user={u} datasets={datasets.filter((d) => !d.metadata_for)} onChanged={refresh} />
        ))}
      </ul>
    </SidePanel>
  );
}

function UserRow({ user, datasets, onChanged }: { user: UserSummary; datasets: DatasetSummary[]; onChanged: () => void }) {
  const [dataset, setDataset] = useState('');
  const [role, setRoleChoice] = useState<DatasetRole>('view');
  const grantDataset = useRef<HTMLSelectElement>(null);
  const name = `${user.first_name} ${user.last_name}`.trim();
  const change = async (datasetUuid: string, datasetName: string, next: DatasetRole | null) => {
    const ok = await confirmDialog(
      next === null
        ? {
            title: 'Revoke role',
            body: `${user.email} loses their role on “${datasetName}” at once: from their next request they see and edit only what anyone may.`,
            confirm: 'Revoke',
            danger: true,
          }
        : {
            title: 'Grant role',
            body: `${user.email} gets “${ROLE_LABEL[next]}” on “${datasetName}”, replacing any role they had there. It counts from their next request.`,
            confirm: 'Grant',
          },
    );
    if (!ok) return;
    try {
      await setRole(user.email, datasetUuid, next === null ? 'none' : GRANT[next]);
      toast({
        kind: 'info',
        text: next === null ? `Revoked ${user.email} on ${datasetName}` : `Granted ${ROLE_LABEL[next]} to ${user.email}`,
      });
      onChanged();
      // A revoked role's button goes with it: the focus goes on to granting one.
      if (next === null) grantDataset.current?.focus();
    } catch (e) {
      toast({ kind: 'error', text: `Could not change the role: ${errorText(e)}` });
    }
  };
  const id = `user-${user.id}`;
  const toggleSuper = async (next: boolean) => {
    const ok = await confirmDialog(
      next
        ? {
            title: 'Make super-user',
            body: `${user.email} may then do everything: every dataset, every user, sync. It counts from their next request.`,
            confirm: 'Make super-user',
          }
        : {
            title: 'Remove super-user',
            body: `${user.email} keeps only their dataset roles, from their next request.`,
            confirm: 'Remove super-user',
            danger: true,
          },
    );
    if (!ok) return;
    try {
      await updateUser(user.id, { super_user: next });
      toast({ kind: 'info', text: `${user.email} is ${next ? 'now' : 'no longer'} a super-user` });
      onChanged();
    } catch (e) {
      toast({ kind: 'error', text: `Could not change ${user.email}: ${errorText(e)}` });
    }
  };
  return (
    <li className="user-row" aria-labelledby={`${id}-name`}>
      <h3 id={`${id}-name`}>
        {user.email}
        {name && <span className="muted"> · {name}</span>}
        {user.super_user && <span className="badge"> super-user</span>}
      </h3>
      <label className="choice">
        <input type="checkbox" checked={user.super_user} onChange={(e) => void toggleSuper(e.target.checked)} />
        Super-user
      </label>
      <SetPassword user={user} />
      {user.super_user ? (
        <p className="muted">Super-users may do everything; they hold no dataset roles.</p>
      ) : (
        <>
          {user.roles.length === 0 ? (
            <p className="muted">No dataset roles.</p>
          ) : (
            <ul className="role-list" aria-label={`Roles of ${user.email}`}>
              {user.roles.map((r) => (
                <li key={r.dataset_uuid}>
                  <span>
                    {r.dataset_name}: <strong>{ROLE_LABEL[r.role]}</strong>
                  </span>
                  <button type="button" className="ghost" onClick={() => void change(r.dataset_uuid, r.dataset_name, null)}>
                    Revoke
                    <span className="sr-only">
                      {' '}
                      {r.dataset_name} role of {user.email}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          )}
          <div className="role-grant" role="group" aria-label={`Grant a role to ${user.email}`}>
            <select ref={grantDataset} aria-label="Dataset" value={dataset} onChange={(e) => setDataset(e.target.value)}>
              <option value="">Dataset…</option>
              {datasets.map((d) => (
                <option key={d.uuid} value={d.uuid}>
                  {d.name}
                </option>
              ))}
            </select>
            <select aria-label="Role" value={role} onChange={(e) => setRoleChoice(e.target.value as DatasetRole)}>
              {(Object.keys(ROLE_LABEL) as DatasetRole[]).map((r) => (
                <option key={r} value={r}>
                  {ROLE_LABEL[r]}
                </option>
              ))}
            </select>
            <button
              type="button"
              disabled={!dataset}
              onClick={() => void change(dataset, datasets.find((d) => d.uuid === dataset)?.name ?? dataset, role)}
            >
              Grant
            </button>
          </div>
        </>
      )}
    </li>
  );
}

function PasswordInput({
  label,
  value,
  onChange,
  problem,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  problem: string | null;
}) {
  return (
    <label>
      {label}
      <input
        type="password"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        autoComplete="new-password"
        aria-invalid={problem ? true : undefined}
      />
      {problem && (
        <span className="field-error" role="alert">
          {problem}
        </span>
      )}
    </label>
  );
}

/** A new password for one user, set with its own button (never sent while it breaks the rule). */
function SetPassword({ user }: { user: UserSummary }) {
  const [password, setPassword] = useState('');
  const problem = passwordProblem(password);
  const set = useMutation({
    mutationFn: () => updateUser(user.id, { password }),
    onSuccess: () => {
      setPassword('');
      toast({ kind: 'info', text: `New password set for ${user.email}` });
    },
    onError: (e) => toast({ kind: 'error', text: `Could not set the password: ${errorText(e)}` }),
  });
  return (
    <form
      className="user-password"
      aria-label={`Password of ${user.email}`}
      onSubmit={(e) => {
        e.preventDefault();
        if (password && !problem) set.mutate();
      }}
    >
      <PasswordInput label="New password" value={password} onChange={setPassword} problem={problem} />
      <SteadyButton type="submit" disabled={set.isPending || password === '' || problem !== null}>
        Set password
      </SteadyButton>
    </form>
  );
}

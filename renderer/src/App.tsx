import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { errorText, startSession } from './lib/api';
import { useEdits } from './lib/edits';
import { useServiceEvents } from './lib/events';
import { useDatasets, useJobs, useSyncStatus } from './lib/queries';
import { useRoute } from './lib/route';
import { JobsPanel } from './jobs/JobsPanel';
import { SyncPanel } from './sync/SyncPanel';
import { SyncStatusLine } from './sync/SyncStatusLine';
import { SettingsPanel, desktop } from './settings/SettingsPanel';
import { DatasetList } from './screens/DatasetList';
import { revealTemplatePart } from './screens/ChildDatasets';
import { DatasetScreen } from './screens/DatasetScreen';
import { Welcome } from './screens/Welcome';
import { TrashPanel } from './trash/TrashPanel';
import { UsersPanel } from './users/UsersPanel';
import { Dialogs } from './ui/Dialog';
import { UndoRedo } from './ui/UndoRedo';
import { Toasts } from './ui/toasts';

const isTyping = (el: Element | null) =>
  el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement;

export function App() {
  const session = useQuery({ queryKey: ['session'], queryFn: startSession, staleTime: Infinity, retry: 2 });
  const live = useServiceEvents(session.isSuccess);
  const [route, go] = useRoute();
  const [panel, setPanel] = useState<'jobs' | 'sync' | 'settings' | 'users' | 'trash' | null>(null);
  const bridge = desktop();
  const jobsOpen = panel === 'jobs';
  const setJobsOpen = (open: boolean) => setPanel(open ? 'jobs' : null);
  const { undo, redo } = useEdits();
  const datasets = useDatasets(session.isSuccess);
  const jobs = useJobs(session.isSuccess);
  const sync = useSyncStatus(!!session.data?.super_user);

  // Ctrl/Cmd+Z undoes the last operation, Ctrl/Cmd+Shift+Z or Ctrl+Y does it again; inside a
  // text box the browser's own undo applies.
  useEffect(() => {
    const on = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || isTyping(document.activeElement)) return;
      const k = e.key.toLowerCase();
      if (k === 'z' || (k === 'y' && !e.shiftKey)) {
        e.preventDefault();
        if (k === 'z' && !e.shiftKey) undo();
        else redo();
      }
    };
    window.addEventListener('keydown', on);
    return () => window.removeEventListener('keydown', on);
  }, [undo, redo]);

  const currentName = datasets.data?.find((d) => d.uuid === route.dataset)?.name;
  useEffect(() => {
    if (!currentName) document.title = 'odr-desktop';
  }, [currentName]);

  if (session.isError) {
    return (
      <div className="fatal" role="alert">
        <h1>odr-desktop</h1>
        <p>Could not sign in to the local service: {errorText(session.error)}</p>
      </div>
    );
  }
  if (!session.data)
    return (
      <div className="fatal" aria-busy="true">
        <p>Starting…</p>
      </div>
    );
  const running = (jobs.data ?? []).filter((j) => j.state === 'running').length;
  const current = datasets.data?.find((d) => d.uuid === route.dataset);
  const conflicts = sync.data?.conflicts.length ?? 0;
  const syncNote = conflicts
    ? `${conflicts} conflict${conflicts === 1 ? '' : 's'}`
    : sync.data?.remotes.length && sync.data.pending
      ? `${sync.data.pending} to send`
      : '';

  return (
    <div className={`app${panel ? ' jobs-open' : ''}${panel === 'sync' ? ' sync-open' : ''}`}>
      <header className="topbar">
        <a className="brand" href="#/">
          odr-desktop
        </a>
        <span className={`live live-${live}`} role="img" title={`Event stream: ${live}`} aria-label={`Updates ${live}`} />
        <UndoRedo undo={() => undo()} redo={redo} />
        <span className="spacer" />
        {session.data.super_user && <SyncStatusLine live={sync.data?.live[0]} onOpen={() => setPanel('sync')} />}
        {session.data.super_user && (
          <button type="button" aria-pressed={panel === 'sync'} onClick={() => setPanel((p) => (p === 'sync' ? null : 'sync'))}>
            Sync{syncNote ? ` (${syncNote})` : ''}
          </button>
        )}
        <button type="button" aria-pressed={jobsOpen} onClick={() => setPanel((p) => (p === 'jobs' ? null : 'jobs'))}>
          Jobs{running ? ` (${running} running)` : ''}
        </button>
        {session.data.super_user && (
          <button type="button" aria-pressed={panel === 'users'} onClick={() => setPanel((p) => (p === 'users' ? null : 'users'))}>
            Users
          </button>
        )}
        <button type="button" aria-pressed={panel === 'trash'} onClick={() => setPanel((p) => (p === 'trash' ? null : 'trash'))}>
          Trash
        </button>
        {bridge && (
          <button type="button" aria-pressed={panel === 'settings'} onClick={() => setPanel((p) => (p === 'settings' ? null : 'settings'))}>
            Settings
          </button>
        )}
        <span className="who" aria-label="Signed in as">
          {session.data.name} · {session.data.email}
        </span>
      </header>
      <DatasetList
        datasets={datasets.data ?? []}
        current={route.dataset}
        onOpen={(uuid) => go({ dataset: uuid, record: undefined, view: 'records' })}
        onOpenChild={(parent, child) => {
          go({ dataset: parent, record: undefined, view: 'template' });
          revealTemplatePart(child);
        }}
      />
      {current ? (
        <DatasetScreen key={current.uuid} summary={current} route={route} go={go} session={session.data} />
      ) : (
        <Welcome
          hasDatasets={!!datasets.data?.length}
          onStarted={() => setJobsOpen(true)}
          onConnect={session.data.super_user ? () => setPanel('sync') : undefined}
          onMade={(made) => {
            // A template's top-level dataset comes first; a record import names what it filled.
            const top = made.find((u) => datasets.data?.some((d) => d.uuid === u)) ?? made[0]!;
            go({ dataset: top, record: undefined, view: 'records' });
            // Opened by the start, not by the person: with the job done it would only cover the list's toolbar.
            setPanel((p) => (p === 'jobs' ? null : p));
          }}
        />
      )}
      {jobsOpen && <JobsPanel onClose={() => setJobsOpen(false)} />}
      {panel === 'sync' && <SyncPanel onClose={() => setPanel(null)} />}
      {panel === 'settings' && bridge && <SettingsPanel bridge={bridge} onClose={() => setPanel(null)} />}
      {panel === 'users' && <UsersPanel datasets={datasets.data ?? []} onClose={() => setPanel(null)} />}
      {panel === 'trash' && <TrashPanel onClose={() => setPanel(null)} />}
      <Toasts />
      <Dialogs />
    </div>
  );
}

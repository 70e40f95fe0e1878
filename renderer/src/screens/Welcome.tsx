import { useEffect, useRef, useState } from 'react';
import { MadeDatasets, type TrackedJob } from '../../../shared/schemas/job';
import { ImportOdrButton } from '../jobs/ImportOdrButton';
import { createSample, errorText } from '../lib/api';
import { useJobs } from '../lib/queries';
import { toast } from '../ui/toasts';

// Generated streaming by the service, so even the largest takes no more memory than the smallest.
// 2,000 between 500 and 10,000: enough to scroll and search, generated in seconds.
const SAMPLE_SIZES = [500, 2_000, 10_000, 100_000, 1_000_000, 2_000_000];

/** First run (no datasets yet): import an ODR export, or generate a sample to look around. */
let headingAsked = false;
/** The dataset on screen was deleted (its Delete button with it): the screen after it takes the focus. */
export const focusWelcome = () => {
  headingAsked = true;
};

/**
 * `onMade`: a sample or an ODR import started here has finished and made these datasets. Called
 * only while this screen is still shown (it is gone once a dataset is opened): someone who moved
 * on meanwhile stays where they are.
 */
export function Welcome({
  hasDatasets,
  onStarted,
  onMade,
  onConnect,
}: {
  hasDatasets: boolean;
  onStarted: () => void;
  onMade: (datasets: string[]) => void;
  /** Opens the Sync panel to add a lab's server (super-users only: undefined hides the button). */
  onConnect?: () => void;
}) {
  const [size, setSize] = useState(500);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (!headingAsked) return;
    headingAsked = false;
    heading.current?.focus();
  }, []);
  // The job started from this screen, until it ends: the screen turns into "Choose a dataset"
  // as soon as the template is in, and the same component waits on.
  const [waiting, setWaiting] = useState<number | null>(null);
  const { data: jobs = [] } = useJobs(waiting !== null);
  const done = jobs.find((j) => j.id === waiting && j.state !== 'running');
  useEffect(() => {
    if (!done) return;
    setWaiting(null);
    const made = done.state === 'complete' ? MadeDatasets.safeParse(done.additional_data) : null;
    if (made?.success && made.data.length) onMade(made.data);
  }, [done, onMade]);
  const started = (job: TrackedJob) => {
    setWaiting(job.id);
    onStarted();
  };
  const run = (p: Promise<TrackedJob>, what: string) =>
    p.then(started, (e: unknown) => toast({ kind: 'error', text: `${what} not started: ${errorText(e)}` }));
  // The same ways in whether or not there is a dataset yet: with one, a second export, a lab's
  // server or a larger sample were otherwise only reachable through the Jobs or Sync panels.
  const actions = (
    <div className="welcome-actions">
      <ImportOdrButton className={hasDatasets ? undefined : 'primary'} onStarted={started}>
        Import an ODR export…
      </ImportOdrButton>
      {onConnect && (
        <button type="button" onClick={onConnect}>
          Connect to an ODR server…
        </button>
      )}
      <span className="welcome-sample">
        <button type="button" onClick={() => run(createSample(size), 'Sample')}>
          Generate a sample dataset
        </button>
        <select aria-label="Sample size" value={size} onChange={(e) => setSize(Number(e.target.value))}>
          {SAMPLE_SIZES.map((n) => (
            <option key={n} value={n}>
              {n.toLocaleString()} records
            </option>
          ))}
        </select>
      </span>
    </div>
  );
  if (hasDatasets) {
    return (
      <main className="main welcome">
        <h1 ref={heading} tabIndex={-1}>
          Choose a dataset
        </h1>
        <p className="muted">Pick a dataset on the left to browse and edit its records, or add another:</p>
        {actions}
      </main>
    );
  }
  return (
    <main className="main welcome">
      <h1 ref={heading} tabIndex={-1}>
        Welcome to odr-desktop
      </h1>
      <p className="muted">
        Your data stays in a local database on this computer. Start with your own ODR data, your lab&apos;s ODR server, or a sample.
      </p>
      {actions}
      <p className="muted small">
        Template exports and record exports ({'{count, records}'}) from any ODR server work; imports run as jobs.
      </p>
    </main>
  );
}

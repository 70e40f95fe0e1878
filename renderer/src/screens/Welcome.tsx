import { useEffect, useRef, useState } from 'react';
import { MadeDatasets, type TrackedJob } from '../../../shared/schemas/job';
import { ImportOdrButton } from '../jobs/ImportOdrButton';
import { createSample, errorText } from '../lib/api';
import { useJobs } from '../lib/queries';
import { toast } from '../ui/toasts';

// Generated streaming by the service, so even the largest takes no more memory than the smallest.
const SAMPLE_SIZES = [500, 10_000, 100_000, 1_000_000, 2_000_000];

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
}: {
  hasDatasets: boolean;
  onStarted: () => void;
  onMade: (datasets: string[]) => void;
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
  if (hasDatasets) {
    return (
      <main className="main welcome">
        <h1 ref={heading} tabIndex={-1}>
          Choose a dataset
        </h1>
        <p className="muted">Pick a dataset on the left to browse and edit its records.</p>
      </main>
    );
  }
  const run = (p: Promise<TrackedJob>, what: string) =>
    p.then(started, (e: unknown) => toast({ kind: 'error', text: `${what} not started: ${errorText(e)}` }));
  return (
    <main className="main welcome">
      <h1 ref={heading} tabIndex={-1}>
        Welcome to odr-desktop
      </h1>
      <p className="muted">Your data stays in a local database on this computer. Start with your own ODR data or a sample.</p>
      <div className="welcome-actions">
        <ImportOdrButton className="primary" onStarted={started}>
          Import an ODR export…
        </ImportOdrButton>
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
      </div>
      <p className="muted small">
        Template exports and record exports ({'{count, records}'}) from any ODR server work; imports run as jobs.
      </p>
    </main>
  );
}

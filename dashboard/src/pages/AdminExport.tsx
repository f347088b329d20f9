// Tenant administration: "export all data of this hospital". The same FHIR Bulk Data job an
// integration runs (`$export` with the administrator's session), polled as its Retry-After says, with
// its progress while it runs and the NDJSON files (one per type) to download when done.
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useFormat } from '../lib/format.ts';
import { PageTitle, Status } from '../ui/kit.tsx';

const FHIR_BASE = '/api/v1/fhir';
const ACCEPT = { accept: 'application/fhir+json' };

interface Manifest {
  transactionTime: string;
  output: { type: string; url: string; count: number }[];
}

type Phase =
  | { kind: 'idle' }
  | { kind: 'busy' }
  | { kind: 'failed' }
  | { kind: 'running'; status: string; progress: string; waitSeconds: number }
  | { kind: 'done'; manifest: Manifest; expires: string | null };

const waitOf = (res: Response) => Math.max(1, Number(res.headers.get('retry-after') ?? 1));

async function kickOff(): Promise<Phase> {
  const res = await fetch(`${FHIR_BASE}/$export`, { headers: { ...ACCEPT, prefer: 'respond-async' } });
  if (res.status === 429) return { kind: 'busy' };
  const status = res.headers.get('content-location');
  if (res.status !== 202 || !status) return { kind: 'failed' };
  return { kind: 'running', status, progress: '', waitSeconds: 1 };
}

async function poll(phase: Extract<Phase, { kind: 'running' }>): Promise<Phase> {
  const res = await fetch(phase.status, { headers: ACCEPT });
  if (res.status === 202 || res.status === 429)
    return { ...phase, progress: res.headers.get('x-progress') ?? phase.progress, waitSeconds: waitOf(res) };
  if (res.status !== 200) return { kind: 'failed' };
  return { kind: 'done', manifest: (await res.json()) as Manifest, expires: res.headers.get('expires') };
}

export default function AdminExport() {
  const { t } = useTranslation();
  const f = useFormat();
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });

  useEffect(() => {
    // Until the kick-off answers there is no status address to poll.
    if (phase.kind !== 'running' || !phase.status) return;
    const timer = setTimeout(() => {
      poll(phase).then(setPhase, () => setPhase({ kind: 'failed' }));
    }, phase.waitSeconds * 1000);
    return () => clearTimeout(timer);
  }, [phase]);

  const start = () => {
    setPhase({ kind: 'running', status: '', progress: '', waitSeconds: 0 });
    kickOff().then(setPhase, () => setPhase({ kind: 'failed' }));
  };
  const running = phase.kind === 'running';

  return (
    <section>
      <PageTitle text={t('dataExport.title')} />
      <p className="lead">{t('dataExport.lead')}</p>
      <p>
        <button type="button" id="start-export" onClick={start} disabled={running}>
          {t('dataExport.start')}
        </button>
      </p>
      {running && phase.status ? (
        <Status id="export-status" message={t('dataExport.running', { progress: phase.progress || '…' })} />
      ) : null}
      {phase.kind === 'busy' ? <Status id="export-status" message={t('dataExport.busy')} error /> : null}
      {phase.kind === 'failed' ? <Status id="export-status" message={t('dataExport.failed')} error /> : null}
      {phase.kind === 'done' ? (
        <>
          <Status
            id="export-status"
            message={t('dataExport.done', { time: f.dateTime(phase.manifest.transactionTime), expires: f.dateTime(phase.expires) })}
          />
          <h2>{t('dataExport.files')}</h2>
          {phase.manifest.output.length ? (
            <ul id="export-files">
              {phase.manifest.output.map((file) => (
                <li key={file.type}>
                  <a href={file.url} download={`${file.type}.ndjson`} data-type={file.type}>
                    {t('dataExport.file', { type: file.type, count: file.count })}
                  </a>
                </li>
              ))}
            </ul>
          ) : (
            <p id="export-files-none">{t('dataExport.none')}</p>
          )}
        </>
      ) : null}
    </section>
  );
}

// The hospital's audit trail (records' audit.list), newest first, with filters kept in the address:
// action, person, AI agents or people, patient, and a date range (whole days in the reader's time
// zone). For roles that may list them (auditors), the break-the-glass accesses with their reasons come first.
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { identity } from '../lib/auth.ts';
import { AUDIT_ACTIONS } from '@simrs/contracts/audit';
import { errorMessage } from '../lib/errors.ts';
import { useCan } from '../lib/session.tsx';
import { cursorPages, useTRPC, useTRPCClient } from '../lib/trpc.ts';
import { AuditTable } from '../ui/AuditTable.tsx';
import { BreakGlassLog } from '../ui/BreakGlassLog.tsx';
import { PageTitle, SelectField, Status, TextField } from '../ui/kit.tsx';

type Action = (typeof AUDIT_ACTIONS)[number];
const FILTERS = ['action', 'actor', 'agen', 'pasien', 'dari', 'sampai'] as const;
/** The `agen` filter: what AI agents did through the MCP server (`ya`), or everything else (`tidak`). */
const AGENT_FILTER: Record<string, boolean> = { ya: true, tidak: false };
type Filters = Record<(typeof FILTERS)[number], string>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Local midnight of a YYYY-MM-DD as an ISO date-time (the end of the day for `to`). */
function dayBound(day: string, end: boolean): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, end ? d + 1 : d).toISOString();
}

/** The audit.list input for the filters in the address (an unknown action or a bad patient id is left out). */
function auditInput(applied: Filters, badPatient: boolean) {
  return {
    limit: 50,
    ...((AUDIT_ACTIONS as readonly string[]).includes(applied.action) ? { action: applied.action as Action } : {}),
    ...(applied.actor ? { actorUserId: applied.actor } : {}),
    ...(Object.hasOwn(AGENT_FILTER, applied.agen) ? { agent: AGENT_FILTER[applied.agen] } : {}),
    ...(applied.pasien && !badPatient ? { pasienId: applied.pasien } : {}),
    ...(dayBound(applied.dari, false) ? { from: dayBound(applied.dari, false) } : {}),
    ...(dayBound(applied.sampai, true) ? { to: dayBound(applied.sampai, true) } : {}),
  };
}

export default function AuditLog() {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const canSeeNames = useCan('audit.read');
  const canOpenPatients = useCan('pasien.read');
  const canListBreakGlass = useCan('btg.list');
  const [params, setParams] = useSearchParams();
  const applied = Object.fromEntries(FILTERS.map((k) => [k, params.get(k) ?? ''])) as Filters;
  // Names and roles, not addresses: what an auditor may know of colleagues (identity's /tenant/names).
  const users = useQuery({ queryKey: ['identity', 'names'], queryFn: identity.names, enabled: canSeeNames });
  const names = new Map(users.data?.users.map((u) => [u.id, u.name]));
  const badPatient = applied.pasien !== '' && !UUID.test(applied.pasien);

  const input = auditInput(applied, badPatient);
  const client = useTRPCClient();
  const log = useInfiniteQuery({
    ...cursorPages(trpc.audit.list.queryKey(input), (cursor) => client.audit.list.query({ ...input, cursor })),
    enabled: !badPatient,
  });
  const items = log.data?.pages.flatMap((p) => p.items) ?? [];

  return (
    <section>
      <PageTitle text={t('audit.title')} />
      <p className="lead">{t('audit.lead')}</p>
      {canListBreakGlass ? <BreakGlassLog names={names} /> : null}
      {canListBreakGlass ? <h2 id="audit-every-access">{t('auditClinical.everyAccess')}</h2> : null}
      <AuditFilters applied={applied} people={users.data?.users} badPatient={badPatient} onApply={setParams} />
      {log.isError ? <Status message={errorMessage(t, log.error)} error /> : null}
      <p role="status" aria-live="polite" className="result-count" id="audit-count">
        {log.isPending && !badPatient ? t('common.loading') : log.isSuccess && items.length === 0 ? t('audit.none') : ''}
      </p>
      {items.length > 0 ? <AuditTable items={items} names={names} linkPatients={canOpenPatients} caption={t('audit.title')} /> : null}
      {log.hasNextPage ? (
        <button
          id="audit-more"
          type="button"
          className="secondary"
          onClick={() => void log.fetchNextPage()}
          disabled={log.isFetchingNextPage}
        >
          {t('patients.more')}
        </button>
      ) : null}
    </section>
  );
}

/** The filter form: edits a draft, and puts it in the address when applied. */
function AuditFilters({
  applied,
  people,
  badPatient,
  onApply,
}: {
  applied: Filters;
  /** The tenant's people by name, when the reader may see them; else the actor is typed as an id. */
  people: Awaited<ReturnType<typeof identity.names>>['users'] | undefined;
  badPatient: boolean;
  onApply: (next: URLSearchParams) => void;
}) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState<Filters>(applied);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const k of FILTERS) if (draft[k].trim()) next.set(k, draft[k].trim());
    onApply(next);
  };
  const set = (k: keyof Filters) => (v: string) => setDraft({ ...draft, [k]: v });

  return (
    <form className="filters grid" onSubmit={submit} aria-label={t('audit.filters')}>
      <SelectField
        label={t('audit.action')}
        name="action"
        value={draft.action}
        onValue={set('action')}
        placeholder={t('audit.anyAction')}
        options={AUDIT_ACTIONS.map((a) => ({ value: a, label: t(`audit.actions.${a}`) }))}
      />
      {people ? (
        <SelectField
          label={t('audit.who')}
          name="actor"
          value={draft.actor}
          onValue={set('actor')}
          placeholder={t('audit.anyone')}
          options={people.map((u) => ({ value: u.id, label: `${u.name} (${t(`role.${u.role}`)})` }))}
        />
      ) : (
        <TextField label={t('audit.actorId')} name="actor" value={draft.actor} onValue={set('actor')} hint={t('audit.actorHint')} />
      )}
      <SelectField
        label={t('audit.channel')}
        name="agen"
        value={draft.agen}
        onValue={set('agen')}
        placeholder={t('audit.anyChannel')}
        options={[
          { value: 'ya', label: t('audit.agentsOnly') },
          { value: 'tidak', label: t('audit.peopleOnly') },
        ]}
      />
      <TextField
        label={t('audit.patientId')}
        name="pasien"
        value={draft.pasien}
        onValue={set('pasien')}
        error={badPatient ? t('audit.patientIdInvalid') : undefined}
        hint={t('audit.patientHint')}
      />
      <TextField label={t('audit.from')} name="dari" type="date" value={draft.dari} onValue={set('dari')} />
      <TextField label={t('audit.to')} name="sampai" type="date" value={draft.sampai} onValue={set('sampai')} />
      <div className="field actions-end">
        <button type="submit" id="apply-filters">
          {t('audit.apply')}
        </button>
      </div>
    </form>
  );
}

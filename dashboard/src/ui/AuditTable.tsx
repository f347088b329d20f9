// Audit entries as a table: when, who (name when the reader may see the directory), what (marked when
// only break-the-glass allowed it), which patients, and the details records kept (filters used, fields
// changed, the kind of clinical entry, a break-the-glass reason; never clinical content).
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../lib/trpc.ts';
import { useFormat } from '../lib/format.ts';

export type AuditEntry = inferRouterOutputs<AppRouter>['audit']['list']['items'][number];

interface Props {
  items: AuditEntry[];
  /** User id -> display name, when known. */
  names?: Map<string, string> | undefined;
  /** Link patient ids to their pages (for roles that may open them). */
  linkPatients?: boolean;
  caption: string;
  showPatients?: boolean;
}

export function AuditTable({ items, names, linkPatients = false, caption, showPatients = true }: Props) {
  const { t } = useTranslation();
  const f = useFormat();
  const detail = (e: AuditEntry) => {
    const fields = Array.isArray(e.details.fields) ? (e.details.fields as string[]) : [];
    const filters = Array.isArray(e.details.filters) ? (e.details.filters as string[]).filter((x) => x !== 'cursor') : [];
    // An AI agent's access names the MCP tool it called.
    if (typeof e.details.tool === 'string') return t('audit.agentTool', { tool: e.details.tool });
    if (fields.length)
      return t('audit.fieldsChanged', { fields: fields.map((x) => t(`patient.${x as 'nama'}`, { defaultValue: x })).join(', ') });
    if (filters.length)
      return t('audit.filtersUsed', { filters: filters.map((x) => t(`audit.filterNames.${x as 'q'}`, { defaultValue: x })).join(', ') });
    // A clinical entry's kind, and the reason a clinician gave for breaking the glass.
    if (typeof e.details.reason === 'string') return t('auditClinical.reason', { reason: e.details.reason });
    if (typeof e.details.jenis === 'string')
      return t('auditClinical.kind', { kind: t(`auditClinical.kinds.${e.details.jenis as 'vital'}`, { defaultValue: e.details.jenis }) });
    return '';
  };
  return (
    <table className="responsive audit-table">
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{t('audit.when')}</th>
          <th scope="col">{t('audit.who')}</th>
          <th scope="col">{t('audit.what')}</th>
          {showPatients ? <th scope="col">{t('audit.patients')}</th> : null}
          <th scope="col">{t('audit.details')}</th>
        </tr>
      </thead>
      <tbody>
        {items.map((e) => (
          <tr key={e.id} data-action={e.action} data-actor={e.actorUserId} data-break-glass={e.breakGlass || undefined}>
            <td data-label={t('audit.when')}>
              <time dateTime={e.occurredAt}>{f.dateTime(e.occurredAt)}</time>
            </td>
            <td data-label={t('audit.who')}>
              <span className="actor-name">{names?.get(e.actorUserId) ?? e.actorUserId}</span>
              <br />
              <small>
                {t(`role.${e.actorRole as 'doctor'}`, { defaultValue: e.actorRole })}
                {e.clientId ? ` · ${t('audit.viaClient', { client: e.clientId })}` : ''}
              </small>
            </td>
            <td data-label={t('audit.what')}>
              {t(`audit.actions.${e.action as 'pasien.get'}`, { defaultValue: e.action })}
              {e.breakGlass ? <span className="badge emergency">{t('auditClinical.breakGlass')}</span> : null}
            </td>
            {showPatients ? (
              <td data-label={t('audit.patients')}>
                {e.pasienIds.length === 0 ? (
                  '—'
                ) : e.pasienIds.length > 1 ? (
                  t('audit.patientCount', { count: e.pasienIds.length, n: f.number(e.pasienIds.length) })
                ) : linkPatients ? (
                  <Link to={`/pasien/${e.pasienIds[0]}`}>{t('audit.openPatient')}</Link>
                ) : (
                  <span className="mono small">{e.pasienIds[0]}</span>
                )}
              </td>
            ) : null}
            <td data-label={t('audit.details')}>{detail(e) || '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

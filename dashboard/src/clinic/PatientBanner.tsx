// The header every clinical page keeps on top: who the patient is (name, age, sex, medical-record
// number) and their allergies. "No known allergy" (the patient was asked) and "not yet asked" (nothing
// recorded) look and read differently: only the first one is an answer.
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { ageOn } from '../lib/format.ts';
import { useTRPC } from '../lib/trpc.ts';

export interface AllergyEntry {
  id: string;
  kode: string | null;
  kategori: string;
  isi: Record<string, unknown>;
}

/** The active allergy entries: none recorded, none known, or the allergies. */
export function allergyState(entries: readonly AllergyEntry[] | undefined): 'unknown' | 'none' | 'some' {
  const active = (entries ?? []).filter((e) => e.isi.clinicalStatus !== 'inactive' && e.isi.clinicalStatus !== 'resolved');
  if (active.length === 0) return 'unknown';
  return active.some((e) => e.isi.noneKnown !== true) ? 'some' : 'none';
}

export function PatientBanner({ pasienId }: { pasienId: string }) {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const patient = useQuery(trpc.pasien.get.queryOptions({ id: pasienId }));
  const allergies = useQuery(trpc.alergi.list.queryOptions({ pasienId }));
  const p = patient.data;
  return (
    <header className="patient-banner" id="patient-banner" aria-label={t('clinic.banner.label')}>
      <p className="banner-who">
        <strong id="banner-name">{p?.nama ?? '…'}</strong>
        {p ? (
          <>
            <span id="banner-age">{t('patient.age', { age: ageOn(p.tanggalLahir) })}</span>
            <span id="banner-sex">{t(`patient.sex.${p.jenisKelamin as 'L'}`)}</span>
            <span>
              {t('patient.noRm')}{' '}
              <strong className="mono" id="banner-norm">
                {p.noRm}
              </strong>
            </span>
          </>
        ) : null}
      </p>
      <Allergies entries={allergies.data} pending={allergies.isPending} />
    </header>
  );
}

function Allergies({ entries, pending }: { entries: readonly AllergyEntry[] | undefined; pending: boolean }) {
  const { t } = useTranslation();
  if (pending) return <p className="allergies">{t('common.loading')}</p>;
  const state = allergyState(entries);
  if (state === 'unknown')
    return (
      <p className="allergies allergies-unknown" id="allergy-banner" data-state="unknown">
        <span aria-hidden="true">?</span> {t('clinic.allergy.notAsked')}
      </p>
    );
  if (state === 'none')
    return (
      <p className="allergies allergies-none" id="allergy-banner" data-state="none">
        {t('clinic.allergy.noneKnown')}
      </p>
    );
  const items = entries!.filter((e) => e.isi.noneKnown !== true);
  return (
    <div className="allergies allergies-some" id="allergy-banner" data-state="some" role="note">
      <strong>
        <span aria-hidden="true">⚠ </span>
        {t('clinic.allergy.title')}:
      </strong>{' '}
      {items.map((e, i) => (
        <span key={e.id} className="allergy">
          {i > 0 ? ', ' : ''}
          {String(e.isi.substance ?? '')}
          {e.isi.criticality === 'high' ? ` (${t('clinic.allergy.criticality.high')})` : ''}
          {e.isi.reaction ? ` — ${String(e.isi.reaction)}` : ''}
        </span>
      ))}
    </div>
  );
}

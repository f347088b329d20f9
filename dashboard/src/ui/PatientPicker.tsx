// The SMART standalone launch's patient picker (on /pilih-pasien): the application asked for
// `launch/patient`, so allowing it means choosing the one patient it works with. It searches records'
// `pasien.list` with the person's own session, so it lists exactly the patients this person may see in
// this hospital; the choice goes with the consent answer (identity keeps it for the grant).
import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { errorMessage } from '../lib/errors.ts';
import { useTRPC } from '../lib/trpc.ts';
import { classify } from '../pages/PatientList.tsx';

/** The search text after the person stopped typing for a moment (one request per pause, not per key). */
function useSettled(value: string, ms = 250): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export function PatientPicker({ chosen, onChoose }: { chosen: string | undefined; onChoose: (id: string) => void }) {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const [text, setText] = useState('');
  const [chosenLabel, setChosenLabel] = useState('');
  const filter = classify(useSettled(text));
  const input = { ...('invalid' in filter ? {} : filter), limit: 10 };
  const found = useQuery(trpc.pasien.list.queryOptions(input));
  const items = found.data?.items ?? [];

  return (
    <fieldset id="patient-picker" className="patient-picker">
      <legend id="patient-title">{t('picker.title')}</legend>
      <label htmlFor="patient-search">{t('picker.search')}</label>
      <input
        id="patient-search"
        name="patient-search"
        type="search"
        autoComplete="off"
        spellCheck={false}
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      {found.isError ? <p className="status error">{errorMessage(t, found.error)}</p> : null}
      <ul id="patient-results" className="patients" aria-busy={found.isFetching}>
        {found.isSuccess && items.length === 0 ? <li className="empty">{t('picker.none')}</li> : null}
        {items.map((p) => (
          <li key={p.id} className="patient">
            <input
              type="radio"
              name="patient"
              id={`patient-${p.id}`}
              value={p.id}
              checked={chosen === p.id}
              onChange={() => (onChoose(p.id), setChosenLabel(t('picker.chosen', { name: p.nama, noRm: p.noRm })))}
            />{' '}
            <label htmlFor={`patient-${p.id}`}>{t('picker.item', { name: p.nama, noRm: p.noRm, born: p.tanggalLahir })}</label>
          </li>
        ))}
      </ul>
      <p id="patient-chosen" role="status" aria-live="polite">
        {chosenLabel}
      </p>
    </fieldset>
  );
}

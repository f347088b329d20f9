// A visit's SATUSEHAT sync state (satusehat.status), beside its own state on the visit page.
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { useTRPC } from '../lib/trpc.ts';

export function SyncState({ kunjunganId }: { kunjunganId: string }) {
  const { t } = useTranslation();
  const trpc = useTRPC();
  const sync = useQuery(trpc.satusehat.status.queryOptions({ kunjunganId }));
  if (!sync.isSuccess) return null;
  const state = sync.data?.state;
  return (
    <span id="visit-sync" data-sync={state ?? 'none'}>
      {t('satusehat.sync')}: {state ? t(`satusehat.state.${state}`) : t('satusehat.never')}
    </span>
  );
}

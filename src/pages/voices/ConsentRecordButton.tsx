import { useMutation } from '@tanstack/react-query'
import { downloadConsentRecord } from '../../api/audit.ts'
import { saveBlob } from '../../components/saveBlob.ts'
import { describeFailure } from './failures.ts'
import { FailureMessage } from './parts.tsx'

/** Downloads one consent's record (who recorded it and how, its voices, revocation and erasures) as JSON. */
export function ConsentRecordButton({ consentId, name }: { consentId: string; name: string | null }) {
  const download = useMutation({
    mutationFn: () => downloadConsentRecord(consentId),
    onSuccess: ({ blob, fileName }) => saveBlob(blob, fileName),
  })
  return (
    <>
      <button
        type="button"
        aria-label={`Download record of ${name ?? consentId}`}
        disabled={download.isPending}
        onClick={() => download.mutate()}
      >
        {download.isPending ? 'Preparing…' : 'Download record'}
      </button>
      {download.isError && <FailureMessage failure={describeFailure(download.error, 'load')} />}
    </>
  )
}

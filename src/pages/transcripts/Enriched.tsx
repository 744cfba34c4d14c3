import { memo } from 'react'
import { enrichmentPieces } from './enrichment.ts'

/** Transcript text with its enrichment tags shown as tags: emotions and sounds as labelled chips, emphasis in bold. */
export const Enriched = memo(function Enriched({ text }: { text: string }) {
  return (
    <>
      {enrichmentPieces(text).map((piece, i) => {
        const key = `${i}-${piece.kind}`
        if (piece.kind === 'text') return <span key={key}>{piece.text}</span>
        if (piece.kind === 'emphasis')
          return (
            <strong key={key} className="tag-emphasis">
              {piece.text}
            </strong>
          )
        return (
          <span key={key} className={`tag tag-${piece.kind}`} title={piece.raw}>
            <span className="visually-hidden">{piece.kind === 'emotion' ? 'emotion: ' : 'sound: '}</span>
            {piece.name}
          </span>
        )
      })}
    </>
  )
})

'use strict'

/**
 * What the table's count says about the rows of a run that created it. `acknowledged` rows were
 * confirmed one by one, `inDoubt` rows were sent but their answer was lost. Verdicts:
 *   exact            the table holds exactly the acknowledged rows
 *   within_in_doubt  it holds some or all of the rows in doubt as well
 *   above            it holds more than acknowledged + in doubt: CrateDB stored rows it had reported
 *                    as failed (a shard failover retries writes internally; capture 63)
 *   missing          it holds fewer than were acknowledged
 */
function reconcile ({ acknowledged, inDoubt, counted, unreported = null }) {
  let verdict
  if (counted === acknowledged) verdict = 'exact'
  else if (counted < acknowledged) verdict = 'missing'
  else if (counted <= acknowledged + inDoubt) verdict = 'within_in_doubt'
  else verdict = 'above'
  return {
    acknowledged,
    in_doubt: inDoubt,
    counted,
    verdict,
    excess: verdict === 'above' ? counted - acknowledged - inDoubt : 0,
    missing: verdict === 'missing' ? acknowledged - counted : 0,
    // Workers that died before their final report sent rows this run never heard of: up to `bound`.
    ...(unreported ? { unreported: { workers: unreported.workers, bound: unreported.bound } } : {})
  }
}

/**
 * The verdict in plain words: `cell` for the summary table, `warning` (or null) for a line of its
 * own below it.
 */
function describeReconciliation (r, fmt) {
  switch (r.verdict) {
    case 'exact':
      return {
        cell: `${fmt(r.counted)}: exactly the rows acknowledged${r.in_doubt > 0 ? `, none of the ${fmt(r.in_doubt)} ` +
          `in doubt` : ''}`,
        warning: null
      }
    case 'within_in_doubt':
      return {
        cell: `${fmt(r.counted)}: the rows acknowledged and ${fmt(r.counted - r.acknowledged)} of ` +
          `the ${fmt(r.in_doubt)} in doubt`,
        warning: null
      }
    case 'above':
      if (r.unreported && r.excess <= r.unreported.bound) {
        const workers = r.unreported.workers.join(', ')
        return {
          cell: `${fmt(r.counted)}: ${fmt(r.excess)} more than acknowledged + in doubt`,
          warning:
            `note: the table holds ${fmt(r.excess)} rows more than the ${fmt(r.acknowledged)} acknowledged and the ` +
            `${fmt(r.in_doubt)} in doubt: worker${r.unreported.workers.length === 1 ? '' : 's'} ${workers} died ` +
            `before its final report, and the rows it sent after its last report (up to about ` +
            `${fmt(r.unreported.bound)}) are unknown to this run`
        }
      }
      return {
        cell: `${fmt(r.counted)}: ${fmt(r.excess)} more than acknowledged + in doubt`,
        warning:
          `warning: the table holds ${fmt(r.excess)} rows more than the ${fmt(r.acknowledged)} acknowledged and ` +
          `the ${fmt(r.in_doubt)} in doubt together: ` +
          'CrateDB stored rows it had reported as failed (a shard failover retries writes internally). Rows ' +
          'acknowledged are a lower bound of what was written.'
      }
    default:
      return {
        cell: `${fmt(r.counted)}: ${fmt(r.missing)} FEWER than acknowledged`,
        warning: `warning: the table holds ${fmt(r.missing)} rows fewer than the ${fmt(r.acknowledged)} the cluster ` +
          `acknowledged: acknowledged writes are missing`
      }
  }
}

module.exports = { reconcile, describeReconciliation }

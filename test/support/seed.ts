// The seed of this run's property tests (fast-check): TANDEM_PROPERTY_SEED replays a run; otherwise a new one each
// run, printed once per test file, so CI explores new cases and any failure can be replayed.

/** This run's seed. */
export const PROPERTY_SEED = seedOfThisRun();

function seedOfThisRun(): number {
  const given = process.env['TANDEM_PROPERTY_SEED'];
  const seed = given === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`TANDEM_PROPERTY_SEED=${given}: must be an integer`);
  console.info(
    `[properties] seed ${seed}${given === undefined ? ' (new this run)' : ' (from TANDEM_PROPERTY_SEED)'}; replay: TANDEM_PROPERTY_SEED=${seed}`,
  );
  return seed;
}

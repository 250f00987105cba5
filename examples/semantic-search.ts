// Semantic search over the Fiori documentation chunks (778 x 384, from @tandem/datasets): "more like this chunk".
import { createEngine } from 'tandem';
import { loadFioriDocs } from '@tandem/datasets';
import { VectorOps } from '@tandem/memory';

const engine = await createEngine();
const docs = await loadFioriDocs();
const search = await VectorOps.create(engine, docs.vectors, docs.dim);
const query = docs.vectors.subarray(42 * docs.dim, 43 * docs.dim);
for (const hit of await search.search(query, 5)) {
  console.log(hit.score.toFixed(3), docs.ids[hit.index], docs.texts[hit.index]?.replace(/\s+/g, ' ').slice(0, 70));
}
search.dispose();
await engine.dispose();

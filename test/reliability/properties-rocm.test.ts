// Every op property on rocm (properties-on.ts; the seed is printed, TANDEM_PROPERTY_SEED replays it).
import { describeProperties } from './properties-on.ts';

await describeProperties('rocm');

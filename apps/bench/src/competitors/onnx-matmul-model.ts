// A one-node ONNX model, C = MatMul(A, B) with A [m, k] and B [k, n] f32, written as protobuf bytes by hand
// (ModelProto fields from onnx.proto3), so onnxruntime-web can be benchmarked without downloading a model.

function varint(value: number): number[] {
  const out: number[] = [];
  let v = value;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

/** A length-delimited field (wire type 2). */
function bytesField(field: number, payload: readonly number[]): number[] {
  return [...varint((field << 3) | 2), ...varint(payload.length), ...payload];
}

/** A varint field (wire type 0). */
function intField(field: number, value: number): number[] {
  return [...varint(field << 3), ...varint(value)];
}

function text(field: number, s: string): number[] {
  return bytesField(field, [...new TextEncoder().encode(s)]);
}

/** ValueInfoProto: a float tensor of the given shape. */
function valueInfo(name: string, shape: readonly number[]): number[] {
  const dims = shape.flatMap((d) => bytesField(1, intField(1, d))); // TensorShapeProto.dim { dim_value }
  const tensorType = [...intField(1, 1), ...bytesField(2, dims)]; // elem_type FLOAT = 1, shape
  return [...text(1, name), ...bytesField(2, bytesField(1, tensorType))]; // name, type { tensor_type }
}

/** The model's bytes. */
export function matmulModel(m: number, k: number, n: number): Uint8Array {
  const node = [...text(1, 'A'), ...text(1, 'B'), ...text(2, 'C'), ...text(4, 'MatMul')];
  const graph = [
    ...bytesField(1, node),
    ...text(2, 'matmul'),
    ...bytesField(11, valueInfo('A', [m, k])),
    ...bytesField(11, valueInfo('B', [k, n])),
    ...bytesField(12, valueInfo('C', [m, n])),
  ];
  const opset = [...text(1, ''), ...intField(2, 13)];
  return Uint8Array.from([
    ...intField(1, 8),
    ...text(2, 'tandem-bench'),
    ...bytesField(7, graph),
    ...bytesField(8, opset),
  ]);
}

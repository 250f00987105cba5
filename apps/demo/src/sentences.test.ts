import { AllBackendsFailedError, InvalidArgumentError } from '@tandem/core';
import { describe, expect, it } from 'vitest';
import { DemoDataError } from './data/demo-data-error.ts';
import { showError } from './sentences.ts';

describe('showError', () => {
  it('says what is wrong in a sentence, without the class name', () => {
    const unknown = showError(new InvalidArgumentError('query', 'qzxv', 'is not among the 50,000 words of this demo'));
    expect(unknown).toEqual({
      sentence: '“qzxv” is not among the 50,000 words of this demo.',
      name: 'InvalidArgumentError',
    });
    const failed = showError(new AllBackendsFailedError('matmul', [{ backend: 'webgpu', error: 'device lost' }]));
    expect(failed).toEqual({
      sentence: 'Matmul failed on every capable backend (webgpu: device lost).',
      name: 'AllBackendsFailedError',
    });
    expect(showError(new DemoDataError('wordnet-csr.bin', 'checksum mismatch (the file is corrupt)')).sentence).toBe(
      'The data file data/wordnet-csr.bin cannot be used: checksum mismatch (the file is corrupt).',
    );
    for (const shown of [unknown, failed]) expect(shown.sentence).not.toMatch(/Error\b|^[a-z]: /);
  });

  it('keeps the name when a minifier renamed the class', () => {
    class t extends InvalidArgumentError {}
    expect(showError(new t('k', 0, 'must be >= 1')).name).toBe('InvalidArgumentError');
  });
});

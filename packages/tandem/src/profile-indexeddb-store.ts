// Profiles in browsers and workers: one IndexedDB record per device fingerprint (database "tandem", object store
// "profiles"). A put is one transaction: a reader sees the old profile or the new one, never half of one. The few
// IndexedDB members used are typed here (the package is built without the DOM library).
import type { ProfileStore } from '@tandem/core';

const DATABASE = 'tandem';
const OBJECT_STORE = 'profiles';

/** A request: its result once onsuccess fires, its error once onerror does. */
interface IdbRequest<T> {
  readonly result: T;
  readonly error: unknown;
  onsuccess: (() => void) | null;
  onerror: (() => void) | null;
}

/** An open request, which creates the object store the first time. */
interface IdbOpenRequest extends IdbRequest<IdbDatabase> {
  onupgradeneeded: (() => void) | null;
  onblocked: (() => void) | null;
}

/** An open database. */
interface IdbDatabase {
  createObjectStore(name: string): unknown;
  transaction(store: string, mode: 'readonly' | 'readwrite'): IdbTransaction;
  close(): void;
}

/** A transaction over the profiles store. */
interface IdbTransaction {
  objectStore(name: string): IdbObjectStore;
  readonly error: unknown;
  oncomplete: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
}

/** The profiles store. */
interface IdbObjectStore {
  get(key: string): IdbRequest<unknown>;
  put(value: unknown, key: string): IdbRequest<unknown>;
}

/** IndexedDB's factory. */
interface IdbFactory {
  open(name: string, version: number): IdbOpenRequest;
}

/** globalThis.indexedDB when this host has one (browsers and their workers; not Node). */
export function hostIndexedDb(): IdbFactory | undefined {
  const factory: unknown = Reflect.get(globalThis, 'indexedDB');
  return isFactory(factory) ? factory : undefined;
}

function isFactory(value: unknown): value is IdbFactory {
  return typeof value === 'object' && value !== null && 'open' in value && typeof value.open === 'function';
}

/** Resolves with a request's result, rejects with its error. */
function settled<T>(request: IdbRequest<T>, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(new Error(`IndexedDB ${what} failed: ${String(request.error)}`));
  });
}

/** Profiles as records of the "profiles" object store of the "tandem" database. */
export class IndexedDbProfileStore implements ProfileStore {
  readonly where = `IndexedDB ${DATABASE}/${OBJECT_STORE}`;
  private readonly factory: IdbFactory;

  constructor(factory: IdbFactory) {
    this.factory = factory;
  }

  async load(key: string): Promise<string | undefined> {
    const db = await this.open();
    try {
      const value = await settled(db.transaction(OBJECT_STORE, 'readonly').objectStore(OBJECT_STORE).get(key), 'get');
      return typeof value === 'string' ? value : undefined;
    } finally {
      db.close();
    }
  }

  async save(key: string, text: string): Promise<void> {
    const db = await this.open();
    try {
      const transaction = db.transaction(OBJECT_STORE, 'readwrite');
      const done = new Promise<void>((resolve, reject) => {
        transaction.oncomplete = () => resolve();
        transaction.onerror = () => reject(new Error(`IndexedDB put failed: ${String(transaction.error)}`));
        transaction.onabort = () => reject(new Error(`IndexedDB put aborted: ${String(transaction.error)}`));
      });
      transaction.objectStore(OBJECT_STORE).put(text, key);
      await done;
    } finally {
      db.close();
    }
  }

  private open(): Promise<IdbDatabase> {
    const request = this.factory.open(DATABASE, 1);
    request.onupgradeneeded = () => {
      request.result.createObjectStore(OBJECT_STORE);
    };
    request.onblocked = () => undefined; // an older tab holding version 0 closes on its own; the open then goes on
    return settled(request, `open ${DATABASE}`);
  }
}

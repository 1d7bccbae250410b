/**
 * A value made on the first call and kept: for what costs start-up time to build and not every run needs (zod
 * schemas: a run that validates nothing builds none).
 */
export function onFirstUse<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}

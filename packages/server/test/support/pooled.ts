/** Runs `calls` with at most `width` in flight (concurrent callers of a limit); their answers in order. */
export async function pooled<T>(calls: (() => Promise<T>)[], width: number): Promise<T[]> {
  const answers: T[] = [];
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < calls.length; index = next++)
      answers[index] = await (calls[index] as () => Promise<T>)();
  };
  await Promise.all(Array.from({ length: width }, worker));
  return answers;
}

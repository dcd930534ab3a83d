async function main() {
  await null;
  console.log('step 1');
  throw new RangeError('out of range in async');
}
main();

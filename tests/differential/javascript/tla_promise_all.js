const fetchLike = (id) => new Promise((res) => Promise.resolve().then(() => res({ id, name: `item${id}` })));
const items = await Promise.all([1, 2, 3].map(fetchLike));
console.log(items.map((i) => i.name).join(', '));
const settled = await Promise.allSettled([fetchLike(4), Promise.reject(new Error('x'))]);
console.log(settled.map((s) => s.status).join(' '));

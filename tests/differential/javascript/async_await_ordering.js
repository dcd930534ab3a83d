const order = [];
async function a() { order.push('a1'); await null; order.push('a2'); }
Promise.resolve().then(() => order.push('then1')).then(() => order.push('then2'));
a();
order.push('sync');
(async () => { await Promise.resolve(); await Promise.resolve(); await Promise.resolve(); console.log(order.join(' ')); })();

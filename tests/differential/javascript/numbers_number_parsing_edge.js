const inputs = ['1e400', '-1e-400', '0.1e1', '.1', '1.', '+5', '--5', '0x', '1e', '  \n42\t', '4.9406564584124654e-324', '2.2250738585072011e-308', '9007199254740993', '123456789012345678901234567890'];
for (const s of inputs) console.log(JSON.stringify(s), String(Number(s)), String(parseFloat(s)));

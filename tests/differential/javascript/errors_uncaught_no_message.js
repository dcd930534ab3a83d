throw new Error();

console.log(Date.parse('2024-13-01'), Date.parse('2024-02-30T00:00:00Z'));

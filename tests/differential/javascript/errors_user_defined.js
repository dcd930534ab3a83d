class ValidationError extends Error {
  constructor(field, message) {
    super(message);
    this.name = 'ValidationError';
    this.field = field;
  }
}
try { throw new ValidationError('age', 'must be positive'); } catch (e) {
  console.log(e.name, e.message, e.field, e instanceof ValidationError, e instanceof Error, String(e));
}

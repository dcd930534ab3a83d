class ValidationError(Exception):
    pass
raise ValidationError("field 'email' is required")

"""Serializers of the result model, one small module per format."""

"""nothing yet"""

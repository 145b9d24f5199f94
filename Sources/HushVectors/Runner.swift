public enum HushVectorsPlaceholder {}

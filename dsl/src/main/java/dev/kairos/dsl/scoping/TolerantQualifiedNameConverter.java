package dev.kairos.dsl.scoping;

import java.util.Arrays;
import org.eclipse.xtext.naming.IQualifiedNameConverter;
import org.eclipse.xtext.naming.QualifiedName;

/**
 * Splits dotted names like Xtext's default, but drops the empty segments that syntax-error recovery
 * can leave (`package a.`): a damaged name must never throw while linking.
 */
public class TolerantQualifiedNameConverter extends IQualifiedNameConverter.DefaultImpl {
  @Override
  public QualifiedName toQualifiedName(String qualifiedNameAsString) {
    if (qualifiedNameAsString == null || qualifiedNameAsString.isEmpty()) {
      return QualifiedName.EMPTY;
    }
    final String[] segments =
        Arrays.stream(qualifiedNameAsString.split("\\.", -1))
            .filter(segment -> !segment.isEmpty())
            .toArray(String[]::new);
    return QualifiedName.create(segments);
  }
}

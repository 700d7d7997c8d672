package dev.kairos.dsl.scoping;

import dev.kairos.dsl.kairos.Gate;
import dev.kairos.dsl.kairos.KairosPackage.Literals;
import dev.kairos.dsl.kairos.Svm;
import dev.kairos.dsl.kairos.Tmo;
import org.eclipse.emf.ecore.EObject;
import org.eclipse.emf.ecore.EReference;
import org.eclipse.xtext.EcoreUtil2;
import org.eclipse.xtext.scoping.IScope;
import org.eclipse.xtext.scoping.Scopes;

/**
 * Names that are resolved inside a TMO rather than globally: a gate's method is a service method of
 * the gate's callee, and a segment use names a segment of the enclosing TMO's ODS.
 */
public class KairosScopeProvider extends AbstractKairosScopeProvider {

  @Override
  public IScope getScope(EObject context, EReference reference) {
    if (reference == Literals.GATE__METHOD && context instanceof Gate gate) {
      final Tmo callee = gate.getCallee();
      if (callee == null || callee.eIsProxy()) {
        return IScope.NULLSCOPE;
      }
      return Scopes.scopeFor(EcoreUtil2.typeSelect(callee.getMethods(), Svm.class));
    }
    if (reference == Literals.SEGMENT_USE__SEGMENT) {
      final Tmo owner = EcoreUtil2.getContainerOfType(context, Tmo.class);
      if (owner == null || owner.getOds() == null) {
        return IScope.NULLSCOPE;
      }
      return Scopes.scopeFor(owner.getOds().getSegments());
    }
    return super.getScope(context, reference);
  }
}

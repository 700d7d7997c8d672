package dev.kairos.dsl.validation;

import dev.kairos.dsl.kairos.Deployment;
import dev.kairos.dsl.kairos.KairosPackage.Literals;
import dev.kairos.dsl.kairos.Node;
import org.eclipse.emf.ecore.resource.Resource;
import org.eclipse.xtext.EcoreUtil2;
import org.eclipse.xtext.validation.Check;

/** Where things run: every TMO is deployed at most once, and nodes run something. */
public class DeploymentValidator extends ConcernValidator {

  @Check
  public void checkNode(Node node) {
    if (node.getDeployments().isEmpty()) {
      warning(
          "node '" + node.getName() + "' deploys no TMO",
          Literals.NODE__NAME,
          IssueCodes.EMPTY_NODE);
    }
  }

  @Check
  public void checkDeployedOnce(Deployment deployment) {
    if (deployment.getTmo() == null || deployment.getTmo().eIsProxy()) {
      return;
    }
    final Resource resource = deployment.eResource();
    if (resource == null || resource.getResourceSet() == null) {
      return;
    }
    for (Resource other : resource.getResourceSet().getResources()) {
      for (Deployment earlier : deploymentsOf(other)) {
        if (earlier == deployment) {
          return;
        }
        if (earlier.getTmo() == deployment.getTmo()) {
          final Node where = EcoreUtil2.getContainerOfType(earlier, Node.class);
          error(
              "TMO '"
                  + deployment.getTmo().getName()
                  + "' is already deployed as '"
                  + earlier.getName()
                  + "'"
                  + (where == null ? "" : " on node '" + where.getName() + "'")
                  + "; a TMO is deployed once",
              Literals.DEPLOYMENT__TMO,
              IssueCodes.TMO_DEPLOYED_TWICE);
          return;
        }
      }
    }
  }

  private static java.util.List<Deployment> deploymentsOf(Resource resource) {
    final java.util.List<Deployment> deployments = new java.util.ArrayList<>();
    for (org.eclipse.emf.ecore.EObject root : resource.getContents()) {
      deployments.addAll(EcoreUtil2.eAllOfType(root, Deployment.class));
    }
    return deployments;
  }
}

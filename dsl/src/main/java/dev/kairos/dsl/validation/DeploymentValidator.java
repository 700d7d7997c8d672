package dev.kairos.dsl.validation;

import dev.kairos.dsl.kairos.Deployment;
import dev.kairos.dsl.kairos.KairosPackage.Literals;
import dev.kairos.dsl.kairos.Node;
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
    final ModelIndex index = ModelIndex.of(deployment, getContext());
    final Deployment earlier = index.firstDeployment.get(deployment.getTmo());
    if (earlier == null || earlier == deployment) {
      return;
    }
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
  }
}

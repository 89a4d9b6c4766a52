package io.acceld.mesos.scheduler;

import io.acceld.proto.mesos.v1.scheduler.Call;
import java.util.Optional;

/**
 * Mesos's {@code scheduler::call::validate}: the shape of a call, checked before anything is looked
 * up, so a malformed call is a 400 whatever the framework's state. The texts are Mesos's, which
 * client libraries and people search for.
 */
final class CallValidation {
  static final String PREFIX = "Failed to validate scheduler::Call: ";

  private CallValidation() {}

  /** Why {@code call} is malformed, without the prefix, or empty. */
  static Optional<String> problem(Call call) {
    if (!call.hasType()) {
      return Optional.of("Expecting 'type' to be present");
    }
    if (call.getType() == Call.Type.SUBSCRIBE) {
      if (!call.hasSubscribe()) {
        return Optional.of("Expecting 'subscribe' to be present");
      }
      return Optional.empty();
    }
    if (!call.hasFrameworkId()) {
      return Optional.of("Expecting 'framework_id' to be present");
    }
    return switch (call.getType()) {
      case ACCEPT -> need(call.hasAccept(), "accept");
      case DECLINE -> need(call.hasDecline(), "decline");
      case ACCEPT_INVERSE_OFFERS -> need(call.hasAcceptInverseOffers(), "accept_inverse_offers");
      case DECLINE_INVERSE_OFFERS -> need(call.hasDeclineInverseOffers(), "decline_inverse_offers");
      case KILL -> need(call.hasKill(), "kill");
      case SHUTDOWN -> need(call.hasShutdown(), "shutdown");
      case ACKNOWLEDGE -> acknowledge(call);
      case ACKNOWLEDGE_OPERATION_STATUS ->
          need(call.hasAcknowledgeOperationStatus(), "acknowledge_operation_status");
      case RECONCILE -> need(call.hasReconcile(), "reconcile");
      case RECONCILE_OPERATIONS -> need(call.hasReconcileOperations(), "reconcile_operations");
      case MESSAGE -> need(call.hasMessage(), "message");
      case REQUEST -> need(call.hasRequest(), "request");
      case UPDATE_FRAMEWORK -> need(call.hasUpdateFramework(), "update_framework");
      default -> Optional.empty();
    };
  }

  private static Optional<String> acknowledge(Call call) {
    if (!call.hasAcknowledge()) {
      return Optional.of("Expecting 'acknowledge' to be present");
    }
    if (call.getAcknowledge().getUuid().size() != 16) {
      return Optional.of("Not a valid UUID");
    }
    return Optional.empty();
  }

  private static Optional<String> need(boolean present, String field) {
    return present ? Optional.empty() : Optional.of("Expecting '" + field + "' to be present");
  }
}

package dev.zklock.actuate;

import java.security.Principal;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

import dev.zklock.LockRevocation;
import dev.zklock.LockRevocationException;
import dev.zklock.core.CuratorLockManager;

/**
 * The answers of {@link LocksEndpoint} that are not records: the outcome of a
 * revocation, and the body that names a problem ({@code status}, {@code problem},
 * {@code name}, {@code key}, {@code node} and {@code message}).
 */
final class LocksEndpointAnswers {

	private static final int STATUS_CONFLICT = 409;

	private LocksEndpointAnswers() {
	}

	/**
	 * Revoke the current holders of a key, or one of them, and describe what was
	 * removed or why nothing was.
	 */
	static WebEndpointResponse<Map<String, Object>> revoke(@Nullable CuratorLockManager manager, String name,
			@Nullable String keyText, @Nullable String node, @Nullable Principal principal) {
		if (manager == null) {
			return error(WebEndpointResponse.STATUS_NOT_FOUND, "NO_LOCK_MANAGER", name, keyText, node,
					"This application's lock manager is not zk-lock's CuratorLockManager, so it cannot revoke locks");
		}
		try {
			LockRevocation revocation = manager.revoke(name, keyText, node,
					(principal != null) ? principal.getName() : null);
			Map<String, Object> body = new LinkedHashMap<>();
			body.put("name", revocation.name());
			body.put("key", revocation.key());
			body.put("path", revocation.path());
			body.put("revoked", revocation.revoked());
			body.put("principal", revocation.principal());
			return new WebEndpointResponse<>(body, WebEndpointResponse.STATUS_OK);
		}
		catch (LockRevocationException ex) {
			int status = switch (ex.getProblem()) {
				case UNAVAILABLE -> WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE;
				case CHANGED -> STATUS_CONFLICT;
				default -> WebEndpointResponse.STATUS_NOT_FOUND;
			};
			return error(status, ex.getProblem().name(), name, keyText, node, ex.getMessage());
		}
	}

	static WebEndpointResponse<Map<String, Object>> unavailable(String name, @Nullable String message) {
		return error(WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE, "UNAVAILABLE", name, null, null, message);
	}

	private static WebEndpointResponse<Map<String, Object>> error(int status, String problem, String name,
			@Nullable String key, @Nullable String node, @Nullable String message) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("status", status);
		body.put("problem", problem);
		body.put("name", name);
		body.put("key", key);
		if (node != null) {
			body.put("node", node);
		}
		body.put("message", message);
		return new WebEndpointResponse<>(body, status);
	}

}

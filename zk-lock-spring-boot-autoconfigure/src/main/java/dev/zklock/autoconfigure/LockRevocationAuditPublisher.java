package dev.zklock.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.audit.AuditEventRepository;
import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.context.ApplicationEventPublisher;

import dev.zklock.LockRevocation;
import dev.zklock.LockRevocationListener;

/**
 * Publishes an {@link AuditApplicationEvent} of type {@value #TYPE} for every
 * revoked lock when auditing is on (an {@link AuditEventRepository} bean exists).
 * A failing publication never fails the revocation, which has happened already.
 */
final class LockRevocationAuditPublisher implements LockRevocationListener {

	static final String TYPE = "ZK_LOCK_REVOKED";

	private static final Logger logger = LoggerFactory.getLogger(LockRevocationAuditPublisher.class);

	private final ApplicationEventPublisher publisher;

	private final ObjectProvider<AuditEventRepository> auditEvents;

	LockRevocationAuditPublisher(ApplicationEventPublisher publisher,
			ObjectProvider<AuditEventRepository> auditEvents) {
		this.publisher = publisher;
		this.auditEvents = auditEvents;
	}

	@Override
	public void lockRevoked(LockRevocation revocation) {
		if (this.auditEvents.getIfAvailable() == null) {
			return;
		}
		Map<String, Object> data = new LinkedHashMap<>();
		data.put("name", revocation.name());
		if (revocation.key() != null) {
			data.put("key", revocation.key());
		}
		data.put("path", revocation.path());
		data.put("nodes", revocation.revoked().stream().map(LockRevocation.RevokedHolder::path).toList());
		data.put("owners", revocation.revoked().stream().map((holder) -> String.valueOf(holder.owner())).toList());
		// the copy takes the type AuditEvent asks for, Map<String, @Nullable Object>, which javac
		// sees from JDK 22 on and not before; a declared type would fail NullAway on one of them
		try {
			this.publisher.publishEvent(new AuditApplicationEvent(
					(revocation.principal() != null) ? revocation.principal() : "", TYPE, new LinkedHashMap<>(data)));
		}
		catch (RuntimeException ex) {
			logger.warn("Could not publish the audit event of the revocation of lock '{}'", revocation.name(), ex);
		}
	}

}

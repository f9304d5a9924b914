package dev.zklock.autoconfigure;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.boot.actuate.audit.AuditEventRepository;
import org.springframework.boot.actuate.audit.InMemoryAuditEventRepository;
import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;

import dev.zklock.LockRevocation;
import dev.zklock.LockRevocation.RevokedHolder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * A revocation becomes a {@code ZK_LOCK_REVOKED} audit event only when auditing is
 * on, and a failing publisher never fails it.
 */
class LockRevocationAuditPublisherTests {

	private static final LockRevocation REVOCATION = new LockRevocation("jobs", "k", "/locks/jobs/k",
			List.of(new RevokedHolder("lock-0000000001", "/locks/jobs/k/lock-0000000001", "{\"thread\":\"t\"}", 42,
					"0x1")),
			"admin");

	private final List<Object> events = new CopyOnWriteArrayList<>();

	@Test
	void publishesWhenAuditingIsOn() {
		StaticListableBeanFactory beans = new StaticListableBeanFactory();
		beans.addBean("auditEventRepository", new InMemoryAuditEventRepository());
		new LockRevocationAuditPublisher(this.events::add, beans.getBeanProvider(AuditEventRepository.class))
			.lockRevoked(REVOCATION);
		assertThat(this.events).singleElement().isInstanceOfSatisfying(AuditApplicationEvent.class, (event) -> {
			assertThat(event.getAuditEvent().getType()).isEqualTo("ZK_LOCK_REVOKED");
			assertThat(event.getAuditEvent().getPrincipal()).isEqualTo("admin");
			assertThat(event.getAuditEvent().getData()).containsEntry("name", "jobs")
				.containsEntry("key", "k")
				.containsEntry("nodes", List.of("/locks/jobs/k/lock-0000000001"));
		});
	}

	@Test
	void publishesNothingWhenAuditingIsOff() {
		new LockRevocationAuditPublisher(this.events::add,
				new StaticListableBeanFactory().getBeanProvider(AuditEventRepository.class))
			.lockRevoked(REVOCATION);
		assertThat(this.events).isEmpty();
	}

	@Test
	void aFailingPublisherDoesNotFailTheRevocation() {
		StaticListableBeanFactory beans = new StaticListableBeanFactory();
		beans.addBean("auditEventRepository", new InMemoryAuditEventRepository());
		LockRevocationAuditPublisher publisher = new LockRevocationAuditPublisher((event) -> {
			throw new IllegalStateException("listener failed");
		}, beans.getBeanProvider(AuditEventRepository.class));
		assertThatNoException().isThrownBy(() -> publisher.lockRevoked(REVOCATION));
	}

}

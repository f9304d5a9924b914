package dev.zklock.autoconfigure;

import org.apache.curator.framework.CuratorFramework;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.audit.AuditEventRepository;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;

import dev.zklock.actuate.LockQueueReader;
import dev.zklock.actuate.LocksEndpoint;
import dev.zklock.core.AsyncLockManager;
import dev.zklock.LockManager;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for the {@code locks} endpoint. Like every endpoint, it is
 * exposed over HTTP once listed in {@code management.endpoints.web.exposure.include};
 * its revocation needs {@code management.endpoint.locks.access=unrestricted}.
 * Revocations are published as audit events when auditing is on.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "zk-lock.enabled", matchIfMissing = true)
@ConditionalOnClass({ CuratorFramework.class, Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean({ LockManager.class, ZkLockClient.class })
public final class LocksEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnAvailableEndpoint
	LocksEndpoint locksEndpoint(ObjectProvider<LockManager> lockManager,
			ObjectProvider<AsyncLockManager> asyncLockManager, ZkLockClient client) {
		LocksEndpoint endpoint = new LocksEndpoint(LockManagers.curator(lockManager),
				LockManagers.async(asyncLockManager), new LockQueueReader(client.getCuratorFramework()));
		endpoint.setClientDescription(client.describe());
		return endpoint;
	}

	// Revocations (through the endpoint or LockTemplate.revoke) become audit events when auditing is on
	@Bean
	@ConditionalOnMissingBean
	LockRevocationAuditPublisher zkLockRevocationAuditPublisher(ApplicationEventPublisher publisher,
			ObjectProvider<AuditEventRepository> auditEvents) {
		return new LockRevocationAuditPublisher(publisher, auditEvents);
	}

}

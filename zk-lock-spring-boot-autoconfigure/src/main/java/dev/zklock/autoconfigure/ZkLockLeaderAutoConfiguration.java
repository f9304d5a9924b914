package dev.zklock.autoconfigure;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

import dev.zklock.LeaderElection;
import dev.zklock.core.AsyncLockManager;
import dev.zklock.leader.CuratorLeaderElection;
import dev.zklock.leader.LeaderAdvisor;
import dev.zklock.leader.LeaderDeclarationValidator;
import dev.zklock.leader.LeaderInterceptor;
import dev.zklock.leader.LeaderMethods;
import dev.zklock.leader.LeaderRoles;
import dev.zklock.leader.LeadershipLifecycle;
import dev.zklock.aop.ResolvedOnFirstUse;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for leadership: the {@link LeaderElection} on the lock
 * engine, the lifecycle that joins roles at startup and gives them up early on
 * shutdown, and the advisor and validator of
 * {@link dev.zklock.annotation.Leader} methods. With
 * {@code zk-lock.leader.enabled=false} the election never competes, so every
 * {@code @Leader} call is skipped.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "zk-lock.enabled", matchIfMissing = true)
@ConditionalOnClass({ CuratorFramework.class, InterProcessMutex.class })
@ConditionalOnBean({ ZkLockClient.class, AsyncLockManager.class })
@EnableConfigurationProperties({ ZkLockProperties.class, ZkLockLeaderProperties.class })
@Import(DistributedLockAutoConfiguration.AutoProxyCreatorRegistrar.class)
public final class ZkLockLeaderAutoConfiguration {

	private static final String ASPECT_ORDER_PROPERTY = "zk-lock.aspect-order";

	private static final String ROLES_PROPERTY = "zk-lock.leader.roles";

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean(LeaderElection.class)
	CuratorLeaderElection zkLeaderElection(@Qualifier(ZkLockClient.QUALIFIER) CuratorFramework client,
			AsyncLockManager asyncLockManager, ApplicationEventPublisher eventPublisher,
			ZkLockProperties properties, ZkLockLeaderProperties leaderProperties, LeaderRoles roles) {
		CuratorLeaderElection election = new CuratorLeaderElection(client, asyncLockManager, eventPublisher,
				leaderProperties.isEnabled(), properties.isInterruptOnLoss());
		for (String role : leaderProperties.getRoles()) {
			try {
				election.addRole(role);
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidZkLockPropertyException(ROLES_PROPERTY, role, String.valueOf(ex.getMessage()),
						"Name each role with letters, digits and '-', separated by commas, such as "
								+ "zk-lock.leader.roles=order-poller,reports");
			}
		}
		roles.subscribe(election::addRole);
		return election;
	}

	@Bean
	@ConditionalOnMissingBean
	LeadershipLifecycle zkLeadershipLifecycle(CuratorLeaderElection election) {
		return new LeadershipLifecycle(election);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static LeaderRoles zkLeaderRoles() {
		return new LeaderRoles();
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static LeaderMethods zkLeaderMethods() {
		return new LeaderMethods();
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static LeaderDeclarationValidator leaderDeclarationValidator(LeaderMethods zkLeaderMethods,
			LeaderRoles zkLeaderRoles) {
		return new LeaderDeclarationValidator(zkLeaderMethods, zkLeaderRoles);
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static LeaderInterceptor leaderInterceptor(LeaderMethods zkLeaderMethods,
			ObjectProvider<CuratorLeaderElection> election) {
		return new LeaderInterceptor(zkLeaderMethods, new ResolvedOnFirstUse<>(election::getIfAvailable));
	}

	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	@ConditionalOnMissingBean
	static LeaderAdvisor leaderAdvisor(LeaderMethods zkLeaderMethods, LeaderInterceptor leaderInterceptor,
			Environment environment) {
		// Created early by the auto-proxy creator: read the order without binding ZkLockProperties
		int order = Binder.get(environment)
			.bind(ASPECT_ORDER_PROPERTY, Integer.class)
			.orElseGet(() -> ZkLockProperties.DEFAULT_ASPECT_ORDER);
		return new LeaderAdvisor(zkLeaderMethods, leaderInterceptor, order);
	}

}
